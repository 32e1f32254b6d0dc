// Whether CUDA will open the GPUs: the device nodes and the uvm module
// (sources/cuda/device_nodes.h), and compute modes that refuse a new
// process. NVML answering says nothing of these: NVML needs only
// /dev/nvidiactl and /dev/nvidiaN, cuInit also /dev/nvidia-uvm (without it
// CUDA fails with 999 CUDA_ERROR_UNKNOWN / cudaErrorNoDevice 100).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/checks.h"
#include "checks/cuda_node_parts.h"

namespace gt {
namespace {

constexpr const char* kRecreate =
    "docker rm -f CONTAINER && docker run --gpus all ...   # same arguments";

void uvm_missing(const CudaDeviceNodes& d, std::vector<Finding>& out) {
  if (d.nvidia_uvm != false && d.uvm_module_loaded != false) return;
  Finding f = node_finding("cuda.uvm_missing");
  f.title = d.nvidia_uvm == false
                ? "/dev/nvidia-uvm is missing: CUDA will fail to initialise (999/100) though "
                  "NVML answers"
                : "The nvidia_uvm module is not loaded: CUDA will fail to initialise (999/100) "
                  "though NVML answers";
  f.evidence = fmt::format("/dev/nvidia-uvm {}; nvidia_uvm module {}{}",
                           !d.nvidia_uvm ? "unknown" : (*d.nvidia_uvm ? "present" : "absent"),
                           d.uvm_module_loaded
                               ? (*d.uvm_module_loaded ? "loaded" : "not loaded (/proc/modules)")
                               : "unknown",
                           d.in_container ? "; inside a container" : "");
  if (d.in_container) {
    f.action =
        "The host loads nvidia-uvm only on first CUDA use, and a container started before "
        "that has no node: load it on the host, then recreate this container.";
    f.commands = {"sudo nvidia-modprobe -u -c=0   # on the host (or: modprobe nvidia-uvm)",
                  kRecreate};
  } else {
    f.action = "Load the module and create its nodes, then start the job.";
    f.commands = {"sudo nvidia-modprobe -u -c=0   # or: modprobe nvidia-uvm"};
  }
  out.push_back(f);
}

/// The GPUs whose /dev/nvidiaN is missing and that matter: every one on a
/// host; in a container those NVML lists (one not given to the container
/// is neither listed by NVML nor expected here).
std::vector<std::string> missing_gpus(const NodeSnapshot& s, const CudaDeviceNodes& d) {
  std::vector<std::string> out;
  for (const auto& [minor, bus] : d.missing_gpu_nodes) {
    const GpuState* g = gpu_by_bus_id(s, bus);
    if (d.in_container && !g) continue;
    out.push_back(fmt::format("/dev/nvidia{} ({})", minor, g ? gpu_label(*g) : bus));
  }
  return out;
}

bool mig_enabled(const NodeSnapshot& s) {
  for (const GpuState& g : s.gpus)
    if (g.mig_mode_current.value_or(false)) return true;
  return false;
}

void nodes_missing(const NodeSnapshot& s, const CudaDeviceNodes& d, std::vector<Finding>& out) {
  std::vector<std::string> missing;
  if (d.nvidiactl == false) missing.push_back("/dev/nvidiactl");
  for (const std::string& m : missing_gpus(s, d)) missing.push_back(m);
  if (d.nvidia_caps == false && mig_enabled(s))
    missing.push_back("/dev/nvidia-caps/ (MIG is enabled)");
  if (missing.empty()) return;
  Finding f = node_finding("cuda.device_node_missing");
  f.title = fmt::format("{} missing: CUDA cannot open {}", fmt::join(missing, ", "),
                        missing.size() == 1 ? "it" : "them");
  f.evidence =
      "the driver lists the GPUs in /proc/driver/nvidia/gpus/*/information (Device "
      "Minor) without their node here" +
      std::string(d.in_container ? "; inside a container" : "");
  if (d.in_container) {
    f.action =
        "Recreate the container with the GPUs it should have (--gpus all, or the "
        "device list), so the toolkit adds their nodes.";
    f.commands = {kRecreate};
  } else {
    f.action = "Create the missing nodes (nvidia-modprobe makes one per GPU minor).";
    if (d.nvidiactl == false) f.commands.push_back("sudo nvidia-modprobe");
    for (const auto& [minor, bus] : d.missing_gpu_nodes)
      f.commands.push_back(fmt::format("sudo nvidia-modprobe -c={}", minor));
    if (d.nvidia_caps == false && mig_enabled(s))
      f.commands.push_back(
          "sudo nvidia-modprobe -f /proc/driver/nvidia/capabilities/mig/config -f "
          "/proc/driver/nvidia/capabilities/mig/monitor");
  }
  out.push_back(f);
}

std::vector<uint32_t> holder_pids(const GpuState& g) {
  std::vector<uint32_t> pids;
  for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{})) pids.push_back(p.pid);
  return pids;
}

void compute_mode_one(const GpuState& g, std::vector<Finding>& out) {
  const std::string mode = g.compute_mode.value_or("");
  const bool exclusive = mode == "Exclusive_Process" || mode == "Exclusive_Thread";
  const std::vector<uint32_t> pids = holder_pids(g);
  if (mode != "Prohibited" && !(exclusive && !pids.empty())) return;
  Finding f = gpu_finding("cuda.compute_mode_blocked", g);
  // Exclusive with a holder is what the mode is for while that holder is the
  // job (a warning: true for a new process, not a fault of the node);
  // Prohibited leaves the GPU to nobody.
  if (exclusive) f.severity = Severity::kWarning;
  f.title = fmt::format(
      "{}: a new process cannot open it (compute mode {}): \"all CUDA-capable devices are "
      "busy or unavailable\"",
      gpu_label(g), mode);
  f.evidence = pids.empty()
                   ? "compute mode " + mode + ": no process may create a context"
                   : fmt::format("compute mode {}; held by PID {}", mode, fmt::join(pids, ", "));
  f.action = pids.empty() || mode == "Prohibited"
                 ? "Set the compute mode back to Default before starting the job."
                 : "Stop the process that holds it, or set the compute mode to Default.";
  f.commands = {fmt::format("sudo nvidia-smi -i {} -c DEFAULT", g.index)};
  out.push_back(f);
}

}  // namespace

void check_cuda_node(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.cuda) return;
  if (const std::optional<CudaDeviceNodes>& d = s.cuda->devices) {
    // "though NVML answers": on a node without a working driver NVML's own
    // findings say what is wrong, and a GPU-less machine has nothing to start.
    if (d->nvidiactl == true && s.nvml.initialized) uvm_missing(*d, out);
    nodes_missing(s, *d, out);
  }
  for (const GpuState& g : s.gpus) compute_mode_one(g, out);
  check_cuda_runtime_builds(s, out);
  check_nccl_limits(s, out);
}

}  // namespace gt
