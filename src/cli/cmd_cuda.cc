// gpu-triage cuda: prove CUDA works on every selected GPU, each under its
// own deadline, in child processes (sources/cuda_driver/). The parent reads
// the GPUs through NVML (the one pipeline: GPUs and their servers), never
// loads CUDA, and judges what the children report (checks/cuda_probe.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "checks/checks.h"
#include "checks/cuda_probe.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "collect/collect.h"
#include "free/gpu_selection.h"
#include "model/exit_code.h"
#include "render/cuda_probe_render.h"
#include "sources/cuda/libcuda_for_new_job.h"
#include "sources/cuda_driver/cuda_child.h"
#include "sources/cuda_driver/probe_run.h"
#include "util/duration.h"
#include "util/env.h"
#include "util/size_arg.h"

namespace gt {
namespace {

constexpr const char* kCudaProg = "gpu-triage cuda";

struct CudaCli {
  CudaProbeOptions probe;
  std::string nvml_lib;
  std::string root = "/";
  std::optional<GpuSelector> gpus;
  bool json = false;
};

std::optional<CudaCli> parse_cuda_args(int argc, char** argv, int& code) {
  CLI::App app{
      "gpu-triage cuda: run CUDA on every selected GPU, each under its own deadline: cuInit, "
      "the device by PCI bus id, a context, memory written and read back, a JIT-compiled "
      "kernel, pinned copy rates against the PCIe link, peer access within each server's GPUs.",
      kCudaProg};
  app.allow_extras();
  app.footer(
      "Exit codes (the triage's): 0 every probed GPU passed; 1 a warning (a slow copy, peers "
      "that cannot reach each other); 2 a GPU failed, was stuck or CUDA cannot start; 3 "
      "nothing could be proved (no GPU for CUDA, every GPU skipped); 64 bad usage.");
  CudaCli c;
  std::string gpus = "all", memory = "1GiB", timeout = "10s", cuda_lib;
  app.add_option("--gpus", gpus,
                 "GPUs to probe: all (default), indices like 0,2,4-7, UUIDs (GPU-...) and PCI "
                 "bus ids, as `free --gpus` takes them");
  app.add_option("--memory", memory,
                 "Memory to write and read back per GPU: a size in bytes with a binary unit "
                 "(512MiB, 1GiB; a bare number is bytes, rounded up to a 4 KiB page; default "
                 "1GiB; never more than its free memory minus 512 MiB)");
  app.add_option("--timeout", timeout,
                 "Deadline for each GPU's probe, from its start (default 10s)");
  app.add_flag("--include-busy", c.probe.include_busy,
               "Probe GPUs that processes hold too (within their free memory minus the margin)");
  app.add_flag("--json", c.json, "JSON output");
  app.add_option("--cuda-lib", cuda_lib,
                 "The libcuda to load (env GPU_TRIAGE_CUDA_LIB; default: libcuda.so.1 through "
                 "the loader's search, as a job started here)")
      ->check(library_path());
  app.add_option("--nvml-lib", c.nvml_lib, "NVML library (env GPU_TRIAGE_NVML_LIB)")
      ->check(library_path());
  app.add_option("--root", c.root, "Directory standing for / (env GPU_TRIAGE_ROOT)");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {kCudaProg, {}})) {
    code = *rc;
    return std::nullopt;
  }
  Result<std::optional<GpuSelector>> list = parse_gpu_selector(gpus);
  Result<std::chrono::milliseconds> t = parse_duration(timeout);
  Result<uint64_t> m = parse_size_bytes(memory);
  std::optional<Error> e = !list ? list.error()
                           : !t  ? t.error().with_context("--timeout")
                           : !m  ? m.error().with_context("--memory")
                                 : std::optional<Error>();
  if (!e && t && t->count() <= 0) e = Error{ErrorKind::kMalformed, "--timeout must be above 0"};
  if (e) {
    code = usage_error(kCudaProg, e->message, c.json);
    return std::nullopt;
  }
  c.gpus = *list;
  c.probe.timeout = *t;
  c.probe.memory_bytes = *m;
  if (c.nvml_lib.empty()) c.nvml_lib = env_or("GPU_TRIAGE_NVML_LIB", "libnvidia-ml.so.1");
  if (app.count("--root") == 0) c.root = env_or("GPU_TRIAGE_ROOT", "/");
  // The library a new job would load (the readiness stage's search).
  c.probe.library = libcuda_to_probe(cuda_lib, FsRoot(c.root));
  return c;
}

int leave(int code, bool abandoned) {
  std::cout.flush();
  if (abandoned) {
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}

}  // namespace

int cmd_cuda(const Command& command, int argc, char** argv) {
  int code = 0;
  std::optional<CudaCli> c = parse_cuda_args(argc, argv, code);
  if (!c) return code;
  CollectInputs in;
  in.root = c->root;
  in.nvml_lib = c->nvml_lib;
  in.timeout = c->probe.timeout;
  in.sample_window = std::chrono::milliseconds(0);
  Collected got = collect_node(in, command.stages);
  const NodeSnapshot& snap = got.report.snapshot;
  std::optional<std::vector<uint32_t>> chosen;
  if (snap.nvml.initialized) {
    Result<std::optional<std::vector<uint32_t>>> r = resolve_gpu_selector(c->gpus, snap);
    if (!r) return leave(usage_error(kCudaProg, r.error().message, c->json), got.abandoned_threads);
    chosen = *r;
    for (uint32_t want : chosen.value_or(std::vector<uint32_t>{}))
      if (gpu_by_index(snap, want) == nullptr)
        return leave(usage_error(kCudaProg,
                                 "--gpus: this node has no GPU " + std::to_string(want) +
                                     " (it has " + std::to_string(snap.gpus.size()) + " GPUs)",
                                 c->json),
                     got.abandoned_threads);
  } else if (c->gpus) {
    return leave(command_error(kCudaProg,
                               "--gpus needs NVML to find the GPUs: " +
                                   snap.nvml.error_message.value_or("NVML unusable"),
                               static_cast<int>(ExitCode::kUnknown), c->json),
                 got.abandoned_threads);
  }
  CudaProbeReport report = probe_cuda(snap, chosen, c->probe);
  std::vector<Finding> findings = cuda_probe_findings(report, snap);
  if (make_check_options(std::nullopt, snap.source).running_as_root) drop_sudo(findings);
  code = static_cast<int>(cuda_probe_exit(report, findings));
  std::cout << (c->json ? render_cuda_json(report, findings, code)
                        : render_cuda_text(report, findings, code));
  return leave(code, got.abandoned_threads);
}

/// `gpu-triage __cuda-child ...`: the probe's child (never typed by a person).
int cmd_cuda_child(const Command&, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::fflush(nullptr);
  _exit(run_cuda_child(args));  // no static destructors after CUDA calls
}

}  // namespace gt
