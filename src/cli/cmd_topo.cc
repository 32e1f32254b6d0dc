// gpu-triage topo: the GPUs and RDMA NICs as a group, as the triage reads
// them (the one pipeline: GPUs and host facts), printed as a matrix
// (render/topology_matrix.h). Judging is the triage's: topology.* and
// rdma.* findings come with `gpu-triage`.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/usage.h"
#include "collect/collect.h"
#include "model/exit_code.h"
#include "render/terminal_width.h"
#include "render/topology_matrix.h"
#include "util/duration.h"
#include "util/env.h"

namespace gt {
namespace {

constexpr const char* kTopoProg = "gpu-triage topo";

struct TopoCli {
  std::string nvml_lib;
  std::string root = "/";
  std::chrono::milliseconds timeout{5000};
  bool wide = false;
};

std::optional<TopoCli> parse_topo_args(int argc, char** argv, int& code) {
  CLI::App app{
      "gpu-triage topo: the GPUs and RDMA NICs as a group, like nvidia-smi topo -m: what each "
      "pair shares on the PCI tree (NVML), NVLink, the pairs without peer-to-peer, each "
      "device's NUMA node and its CPUs. The triage judges it (topology.*, rdma.* findings).",
      kTopoProg};
  app.footer(
      "Exit codes: 0 the matrix was printed; 3 nothing to show (NVML did not start, or fewer "
      "than two GPUs with their pairs or NUMA nodes known, and no NIC); 64 bad usage.");
  TopoCli c;
  std::string timeout = "5s";
  app.add_option("--timeout", timeout, "Deadline for the NVML collection (default 5s)");
  app.add_flag("--wide", c.wide, "Do not fit the terminal's width (the CPU lists in full)");
  app.add_option("--nvml-lib", c.nvml_lib, "NVML library (env GPU_TRIAGE_NVML_LIB)")
      ->check(library_path());
  app.add_option("--root", c.root, "Directory standing for / (env GPU_TRIAGE_ROOT)");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {kTopoProg, {}})) {
    code = *rc;
    return std::nullopt;
  }
  Result<std::chrono::milliseconds> t = parse_duration(timeout);
  if (!t || t->count() <= 0) {
    code = usage_error(
        kTopoProg, t ? "--timeout must be above 0" : t.error().with_context("--timeout").message);
    return std::nullopt;
  }
  c.timeout = *t;
  if (c.nvml_lib.empty()) c.nvml_lib = env_or("GPU_TRIAGE_NVML_LIB", "libnvidia-ml.so.1");
  if (app.count("--root") == 0) c.root = env_or("GPU_TRIAGE_ROOT", "/");
  return c;
}

}  // namespace

int cmd_topo(const Command& command, int argc, char** argv) {
  int code = 0;
  std::optional<TopoCli> c = parse_topo_args(argc, argv, code);
  if (!c) return code;
  CollectInputs in;
  in.root = c->root;
  in.nvml_lib = c->nvml_lib;
  in.timeout = c->timeout;
  in.sample_window = std::chrono::milliseconds(0);
  Collected got = collect_node(in, command.stages);
  const NodeSnapshot& snap = got.report.snapshot;
  const size_t width =
      c->wide ? std::string::npos : static_cast<size_t>(table_width(STDOUT_FILENO));
  const std::string matrix = render_topology_matrix(snap, width);
  const int rc = matrix.empty() ? static_cast<int>(ExitCode::kUnknown) : 0;
  std::cout << (matrix.empty() ? render_topology_nothing(snap) : matrix);
  std::cout.flush();
  if (got.abandoned_threads) {
    std::fflush(nullptr);
    _exit(rc);
  }
  return rc;
}

}  // namespace gt
