#include "checks/cuda_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "checks/catalogue.h"
#include "checks/checks.h"
#include "checks/cuda_library_checks.h"
#include "model/cuda_errors.h"
#include "util/byte_units.h"
#include "util/index_list.h"

namespace gt {
namespace {

Finding probe_finding(const char* id, const CudaGpuProbe& p, const NodeSnapshot& s) {
  if (p.nvml_index)
    if (const GpuState* g = gpu_by_index(s, *p.nvml_index)) return gpu_finding(id, *g);
  Finding f = node_finding(id);
  f.subject.kind = "gpu";
  f.subject.pci_bus_id = p.pci_bus_id;
  return f;
}

std::string label(const CudaGpuProbe& p) {
  return p.nvml_index ? fmt::format("GPU {} ({})", *p.nvml_index, p.pci_bus_id) : p.pci_bus_id;
}

std::string error_words(int code, const std::optional<std::string>& name) {
  return fmt::format("{} {}: {}", code, name.value_or(cuda_error_name(code)),
                     cuda_error_meaning(code));
}

std::string library_words(const CudaProbeReport& r) {
  std::string lib = r.library_file.value_or(r.library);
  if (r.library_version) lib += " (" + *r.library_version + ")";
  return lib;
}

/// The action and commands for cuInit's error, node-wide.
void init_advice(Finding& f, const CudaProbeReport& r, int code) {
  const std::string module = r.module_version.value_or("the loaded module's");
  switch (code) {
    case 803:
      f.action = fmt::format(
          "make the libcuda a job loads the kernel module's release ({}): install that "
          "release's user-space driver libraries, or recreate the container with the NVIDIA "
          "Container Toolkit so it mounts the host's; remove a cuda-compat entry that shadows "
          "them",
          module);
      f.commands = {"cat /proc/driver/nvidia/version", "ldconfig -p | grep libcuda.so.1"};
      break;
    case 804:
      f.action =
          "remove the CUDA forward-compatibility libraries (cuda-compat) from the "
          "loader's path: this GPU does not support them";
      f.commands = {"ldconfig -p | grep libcuda.so.1", "ls /etc/ld.so.conf.d/"};
      break;
    case 802:
      f.action = "start the fabric manager (NVSwitch systems need it before CUDA starts)";
      f.commands = {"sudo systemctl start nvidia-fabricmanager",
                    "systemctl status nvidia-fabricmanager"};
      break;
    case 999:
      f.action =
          "check /dev/nvidia-uvm exists (load nvidia-uvm on the host) and the GPUs' "
          "state in the triage";
      f.commands = {"ls -l /dev/nvidia-uvm", "sudo nvidia-modprobe -u -c=0", "gpu-triage"};
      break;
    case 100:
      f.action =
          "give the process the GPUs' device nodes (/dev/nvidiaN, /dev/nvidia-uvm): "
          "check CUDA_VISIBLE_DEVICES and the container's devices";
      f.commands = {"ls -l /dev/nvidia*"};
      break;
    default:
      f.action = "run the triage for the driver's and the GPUs' state";
      f.commands = {"gpu-triage"};
  }
}

/// Stuck in a step every process takes before it picks its GPU (loading
/// the library, cuInit): said once for the node when the node's own probe
/// is stuck too, never as one GPU's fault.
bool stuck_before_its_gpu(const CudaGpuProbe& p) {
  return p.outcome == CudaOutcome::kStuck &&
         (p.stuck_in == std::optional<std::string>("cuInit") ||
          p.stuck_in == std::optional<std::string>("starting the child"));
}

bool every_probed_failed_init(const CudaProbeReport& r) {
  for (const CudaGpuProbe& p : r.gpus) {
    if (p.outcome == CudaOutcome::kSkipped) continue;
    if (p.failed_step != std::optional<std::string>("cuInit")) return false;
  }
  return true;
}

void node_findings(const CudaProbeReport& r, const NodeSnapshot& s, std::vector<Finding>& out) {
  if (r.load_error) {
    Finding f = node_finding("cuda.library_unusable");
    f.title = "The libcuda a job would load cannot be used";
    f.evidence = *r.load_error;
    f.action =
        "install the NVIDIA driver's user-space libraries (libcuda1), or pass "
        "--cuda-lib PATH";
    f.commands = {"ldconfig -p | grep libcuda.so.1"};
    out.push_back(f);
    return;
  }
  if (r.node_error && !r.init_error) {
    Finding f = node_finding("cuda.probe_stuck");
    f.title = "CUDA did not start: the node's probe " +
              std::string(r.node_error->starts_with("stuck") ? "was " : "ended: ") + *r.node_error;
    f.evidence = library_words(r) + ": " + *r.node_error;
    std::vector<uint32_t> same;
    for (const CudaGpuProbe& p : r.gpus)
      if (p.nvml_index && stuck_before_its_gpu(p)) same.push_back(*p.nvml_index);
    if (!same.empty())
      f.evidence += fmt::format("; the probe{} of GPU{} {} {} stuck there too, before reaching {}",
                                same.size() == 1 ? "" : "s", same.size() == 1 ? "" : "s",
                                format_index_list(same), same.size() == 1 ? "was" : "were",
                                same.size() == 1 ? "its GPU" : "their GPUs");
    f.action = "run the triage for the driver's state (a wedged driver blocks every CUDA call)";
    f.commands = {"gpu-triage"};
    out.push_back(f);
    return;
  }
  if (!r.init_error) return;
  const int code = *r.init_error;
  if (code == 100 && s.gpus.empty()) {
    Finding f = node_finding("cuda.no_device");
    f.severity = Severity::kInfo;
    f.title = "No GPU for CUDA here: cuInit says " + cuda_error_name(100) + " and NVML lists none";
    f.evidence = fmt::format("{}: cuInit returned {}", library_words(r),
                             error_words(code, r.init_error_name));
    if (r.driver_api_version)
      f.evidence += fmt::format("; cuDriverGetVersion {}", *r.driver_api_version);
    if (r.nvml_error) f.evidence += "; NVML: " + *r.nvml_error;
    f.action = "nothing to probe on this node";
    out.push_back(f);
    return;
  }
  if (!every_probed_failed_init(r)) return;  // per GPU findings say it
  Finding f = node_finding(code == 100 ? "cuda.no_device" : "cuda.init_failed");
  // cuInit is per process, not per GPU: what failed is a new process with
  // this libcuda. A GPU held by a running CUDA process was not probed, and
  // that process is itself proof that CUDA started there (physics.md R3).
  f.title = fmt::format("CUDA cannot start in a new process with this libcuda: cuInit returns {}",
                        r.init_error_name.value_or(cuda_error_name(code)));
  f.evidence =
      fmt::format("{}: cuInit returned {}", library_words(r), error_words(code, r.init_error_name));
  if (r.module_version) f.evidence += "; kernel module " + *r.module_version;
  if (r.driver_api_version)
    f.evidence += fmt::format("; cuDriverGetVersion {}", *r.driver_api_version);
  f.evidence += s.nvml.initialized ? fmt::format("; {} GPU{} listed by NVML", s.gpus.size(),
                                                 s.gpus.size() == 1 ? "" : "s")
                                   : std::string("; NVML not usable, no GPU listed");
  size_t held = 0;
  bool compute = false;  // a compute process holds one of them
  for (const CudaGpuProbe& p : r.gpus) {
    if (p.outcome != CudaOutcome::kSkipped || !p.detail || !p.detail->starts_with("held")) continue;
    ++held;
    if (const GpuState* g = p.nvml_index ? gpu_by_index(s, *p.nvml_index) : nullptr;
        g && g->processes)
      compute = compute ||
                std::any_of(g->processes->begin(), g->processes->end(), [](const GpuProcess& x) {
                  return x.type.find("compute") != std::string::npos;
                });
  }
  // A graphics client (Xorg, a desktop) proves nothing of CUDA.
  if (held > 0)
    f.evidence += fmt::format("; {} GPU{} not probed: held by running processes{}", held,
                              held == 1 ? "" : "s",
                              compute ? " (a compute process among them started CUDA with the "
                                        "libcuda it mapped then)"
                                      : " (graphics only: no proof that CUDA starts)");
  init_advice(f, r, code);
  out.push_back(f);
}

void copy_finding(const CudaGpuProbe& p, const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!p.link_gb_per_s || !p.h2d_gb_per_s || !p.d2h_gb_per_s || !p.link_max_gen) return;
  const double worst = std::min(*p.h2d_gb_per_s, *p.d2h_gb_per_s);
  if (worst >= kCopySlowShare * *p.link_gb_per_s) return;
  Finding f = probe_finding("cuda.copy_slow", p, s);
  f.title = fmt::format("Copies to and from {} run far below its PCIe link's rate", label(p));
  const double lane = *pcie_gb_per_s(*p.link_max_gen, 1);
  const double lanes = std::exp2(std::max(0.0, std::round(std::log2(worst / (0.8 * lane)))));
  f.evidence = fmt::format(
      "{}: pinned copies at {:.1f} GB/s host-to-device, {:.1f} GB/s device-to-host; its x{} "
      "Gen{} link carries {:.1f} GB/s (below {:.0f}% of it; about what x{:.0f} carries)",
      label(p), *p.h2d_gb_per_s, *p.d2h_gb_per_s, *p.link_max_width, *p.link_max_gen,
      *p.link_gb_per_s, kCopySlowShare * 100, lanes);
  if (p.link_gen && p.link_width)
    f.evidence += fmt::format("; NVML reads the link at x{} Gen{} now", *p.link_width, *p.link_gen);
  f.action = "reseat the GPU or its riser, check the slot's BIOS settings and AER errors";
  f.commands = {fmt::format("sudo lspci -vvv -s {} | grep -E 'LnkCap|LnkSta'",
                            normalize_pci_bus_id(p.pci_bus_id))};
  out.push_back(f);
}

/// A GPU's finding for how its probe ended, its evidence the probe's words.
Finding outcome_finding(const char* id, const CudaGpuProbe& p, const NodeSnapshot& s,
                        std::string title, std::string action, std::vector<std::string> commands) {
  Finding f = probe_finding(id, p, s);
  f.title = std::move(title);
  f.evidence = label(p) + ": " + p.detail.value_or("");
  f.action = std::move(action);
  f.commands = std::move(commands);
  return f;
}

/// What to do about a failed step. Out of memory (2) where cuMemGetInfo
/// said how much was free: the probe asks for at most the free memory less
/// its margin, so the allocation fitted and freeing memory is not the fix;
/// without that figure (a context that could not be made), it may be.
void oom_or_other_advice(const CudaGpuProbe& p, int code, Finding& f) {
  if (code == 2 && p.free_bytes && p.failed_step == std::optional<std::string>("cuMemAlloc")) {
    f.action = fmt::format(
        "not a lack of memory: the allocation fitted in the {} cuMemGetInfo reported free; run "
        "the triage for this GPU (retired or remapped rows, Xid 31/48), then reset it",
        format_bytes(*p.free_bytes));
    f.commands = {"gpu-triage"};
  } else if (code == 2) {
    f.action = "free the GPU's memory, then probe it again";
    f.commands = {fmt::format("gpu-triage free --gpus {}", p.pci_bus_id)};
  } else {
    f.action =
        "run the triage for this GPU; a context or launch failure after an Xid needs a GPU "
        "reset";
    f.commands = {"gpu-triage"};
  }
}

void gpu_findings(const CudaGpuProbe& p, const NodeSnapshot& s, bool node_said,
                  std::vector<Finding>& out) {
  switch (p.outcome) {
    case CudaOutcome::kPassed:
      copy_finding(p, s, out);
      return;
    case CudaOutcome::kSkipped:
    case CudaOutcome::kNotLoaded:
      return;
    case CudaOutcome::kLate:
      // Cut off while its calls still returned: nothing proved, no reset.
      return out.push_back(outcome_finding(
          "cuda.probe_late", p, s,
          fmt::format("The CUDA probe of {} did not finish in time (in {}), not stuck", label(p),
                      p.stuck_in.value_or("?")),
          "nothing is proved either way: probe it again with a longer --timeout; if it is slow "
          "again, compare its copy rates with its link (cuda.copy_slow) and the host's load",
          {fmt::format("gpu-triage cuda --gpus {} --timeout 60s", p.pci_bus_id)}));
    case CudaOutcome::kStuck:
      if (node_said && stuck_before_its_gpu(p)) return;  // the node's finding says it
      return out.push_back(outcome_finding(
          "cuda.probe_stuck", p, s,
          fmt::format("CUDA stuck in {} on {}", p.stuck_in.value_or("?"), label(p)),
          "the GPU does not answer CUDA: run the triage, then reset the GPU or reboot",
          {"gpu-triage", fmt::format("sudo nvidia-smi -r -i {}", p.pci_bus_id)}));
    case CudaOutcome::kCrashed:
      return out.push_back(outcome_finding(
          "cuda.probe_crashed", p, s, fmt::format("The CUDA probe of {} died", label(p)),
          "run the triage and check the kernel log for this GPU", {"gpu-triage"}));
    case CudaOutcome::kFailed:
      break;
  }
  if (p.mismatch) {
    const CudaMismatch& m = *p.mismatch;
    Finding f = probe_finding("cuda.readback_mismatch", p, s);
    f.title = fmt::format("Memory on {} reads back wrong", label(p));
    f.evidence = fmt::format(
        "{}: {} of {} words read back differ ({}); the first at byte {:#x}: wrote {:#010x}, "
        "read {:#010x}",
        label(p), m.wrong_words, m.what == "kernel" ? "the kernel's" : "the pattern's",
        m.what == "kernel" ? "values the kernel wrote" : "written through pinned memory",
        m.offset_bytes, m.expected, m.got);
    f.action =
        "take the GPU out of service: its memory returns wrong data; check ECC and "
        "the remapped rows, reset it and probe again, then RMA";
    f.commands = {fmt::format("nvidia-smi -q -d ECC,ROW_REMAPPER -i {}", p.pci_bus_id)};
    out.push_back(f);
    return;
  }
  if (node_said && p.failed_step == std::optional<std::string>("cuInit")) return;
  Finding f = probe_finding("cuda.probe_failed", p, s);
  const int code = p.error_code.value_or(-1);
  f.title = fmt::format("CUDA fails on {} at {}: {}", label(p), p.failed_step.value_or("?"),
                        p.error_name.value_or(cuda_error_name(code)));
  f.evidence = fmt::format("{}: {} returned {}", label(p), p.failed_step.value_or("?"),
                           error_words(code, p.error_name));
  if (code == 2 && p.free_bytes)
    f.evidence += fmt::format(" (free {} before the allocation)", format_bytes(*p.free_bytes));
  oom_or_other_advice(p, code, f);
  out.push_back(f);
}

void peer_findings(const CudaProbeReport& r, const NodeSnapshot&, std::vector<Finding>& out) {
  for (const CudaPeerGroup& g : r.peer_groups) {
    std::vector<std::string> denied;
    for (const CudaPeerPair& p : g.pairs)
      if (p.can_access == false && p.from_index && p.to_index && *p.from_index < *p.to_index)
        denied.push_back(fmt::format("{}-{}", *p.from_index, *p.to_index));
    // A pair denied one way only is said too.
    for (const CudaPeerPair& p : g.pairs)
      if (p.can_access == false && p.from_index && p.to_index && *p.from_index > *p.to_index) {
        std::string pair = fmt::format("{}-{}", *p.to_index, *p.from_index);
        if (std::find(denied.begin(), denied.end(), pair) == denied.end()) denied.push_back(pair);
      }
    if (denied.empty()) continue;
    std::sort(denied.begin(), denied.end());
    Finding f = node_finding("cuda.peer_unreachable");
    f.title = fmt::format("GPUs of {} cannot reach each other (peer access): {}", g.who,
                          fmt::join(denied, ", "));
    f.evidence = fmt::format(
        "cuDeviceCanAccessPeer is 0 between GPU{} {} of {}'s {} GPUs; NCCL will fall back to "
        "copies through host memory for those pairs",
        denied.size() == 1 ? " pair" : " pairs", fmt::join(denied, ", "), g.who,
        g.gpu_indices.size());
    f.action =
        "check the topology (nvidia-smi topo -m), ACS/IOMMU settings, and in a VM the "
        "GPUs' passthrough peer-to-peer settings";
    f.commands = {"nvidia-smi topo -m", "nvidia-smi topo -p2p r"};
    out.push_back(f);
  }
}

}  // namespace

std::vector<Finding> cuda_probe_findings(const CudaProbeReport& r, const NodeSnapshot& s) {
  std::vector<Finding> out;
  node_findings(r, s, out);
  const bool node_said = !out.empty();
  for (const CudaGpuProbe& p : r.gpus) gpu_findings(p, s, node_said, out);
  peer_findings(r, s, out);
  return out;
}

ExitCode cuda_probe_exit(const CudaProbeReport& r, const std::vector<Finding>& f) {
  Severity worst = Severity::kOk;
  for (const Finding& x : f) worst = std::max(worst, x.severity);
  if (worst == Severity::kCritical) return ExitCode::kCritical;
  if (worst == Severity::kWarning) return ExitCode::kWarning;
  bool proved = std::any_of(r.gpus.begin(), r.gpus.end(), [](const CudaGpuProbe& p) {
    return p.outcome == CudaOutcome::kPassed;
  });
  return proved ? ExitCode::kOk : ExitCode::kUnknown;
}

}  // namespace gt

namespace gt {

namespace {

/// The prediction among `out` about the library the probe loaded: a new
/// job's (no process named) whose release is the probe's (cuInit's answer
/// is the release's against the module's, R2), of the error `code` (any
/// predicted error when null). nullptr otherwise: a probe of another
/// library (--cuda-lib, another release) proves nothing about it.
Finding* prediction_of(std::vector<Finding>& out, const CudaProbeReport& r, const NodeSnapshot& s,
                       std::optional<int> code) {
  const ResolvedLibrary* job = s.cuda ? new_job_libcuda(*s.cuda) : nullptr;
  if (!r.library_version || !job || job->version != r.library_version) return nullptr;
  for (Finding& f : out) {
    const std::optional<int> predicted = predicted_cuinit_error(f.id);
    if (predicted && (!code || predicted == code) && !f.subject.pid) return &f;
  }
  return nullptr;
}

/// Whether cuInit succeeded in the probe: no error, and a GPU's probe got
/// past it (passed, or failed at a later step).
bool cuinit_started(const CudaProbeReport& r) {
  if (r.init_error || r.load_error) return false;
  return std::any_of(r.gpus.begin(), r.gpus.end(), [](const CudaGpuProbe& p) {
    return p.outcome == CudaOutcome::kPassed ||
           (p.failed_step && *p.failed_step != "cuInit" && *p.failed_step != "starting the child");
  });
}

/// A prediction that CUDA fails in a new job whose release the probe just
/// started CUDA with: both cannot be true, and the proof outranks the
/// prediction (R3). The contradiction itself is the finding, replacing it.
Finding contradicted(const Finding& prediction, const CudaProbeReport& r) {
  Finding f = node_finding("cuda.release_contradicted");
  f.title = fmt::format(
      "A new job's libcuda (release {}) was predicted to fail cuInit with {}, yet the probe "
      "started CUDA with that release under kernel module {}",
      *r.library_version, predicted_cuinit_error(prediction.id).value_or(0),
      r.module_version.value_or("?"));
  f.evidence = "predicted: " + prediction.title + "; the probe: " + library_words(r) +
               ": cuInit succeeded and a GPU was probed past it";
  f.action =
      "The probe is the proof: CUDA starts with this release under this module. Nothing here "
      "predicts a failure; find out why the prediction's reading (the library's release, the "
      "GPU's class) is wrong before trusting it elsewhere.";
  f.commands = {"cat /proc/driver/nvidia/version", "ldconfig -p | grep libcuda.so.1"};
  return f;
}

/// The probe's cuInit failure proves the prediction of the same error: one
/// cause, one finding and one plan step. The prediction leads (it names
/// the library and the fix); the proof's words are added to its evidence.
void join_proof(Finding& prediction, const Finding& proof) {
  prediction.severity = std::max(prediction.severity, proof.severity);
  prediction.joined_ids.push_back(proof.id);
  prediction.evidence += "; proven by the probe: " + proof.evidence;
}

}  // namespace

void check_cuda_probe(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.cuda_probe) return;
  const CudaProbeReport& r = *s.cuda_probe;
  if (cuinit_started(r))
    if (Finding* p = prediction_of(out, r, s, std::nullopt)) *p = contradicted(*p, r);
  for (Finding& f : cuda_probe_findings(r, s)) {
    Finding* prediction = finding_event(f.id) == FindingEvent::kCuInitProof && r.init_error
                              ? prediction_of(out, r, s, r.init_error)
                              : nullptr;
    if (prediction)
      join_proof(*prediction, f);
    else
      out.push_back(std::move(f));
  }
}

}  // namespace gt
