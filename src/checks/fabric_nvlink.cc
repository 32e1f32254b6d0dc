// NVSwitch fabric registration and NVLink state (nvml-abi.md 8.4, 8.5).
//
// On an NVSwitch system a GPU must register with the fabric (Fabric
// Manager) before CUDA can use it; a PCIe board reports no fabric and is
// never judged here. Before Hopper NVML reports no fabric state at all: there
// the need comes from the bus (NVSwitch functions, vendor 0x10de class
// 0x0680) and whether Fabric Manager runs from the node's processes
// (nv-fabricmanager), its systemd unit and its command socket
// (sources/procfs/fabric_manager.h); where none of these can be read (a
// container) it is unknown, said as info. The finding is the same
// fabric.not_registered, never a second one for the same fact. A link is judged against its
// siblings: GPUs of the same model where at least one has that link active (a board without NVLink,
// or one whose links are all unused by design, reports no active sibling and is left alone). Error
// counters are judged on their growth during the sample window, never on the cumulative value:
// DCGM's health watch treats any replay/recovery error as a failure (limit 1) and CRC errors only
// at 100 or more per second (dcgm_gpu_hardware_limits.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "checks/checks.h"
#include "util/plural.h"

namespace gt {
namespace {

constexpr double kCrcPerSecondLimit = 100.0;

/// How Fabric Manager is seen on this node.
enum class FmSeen { kRuns, kNotRunning, kUnknown };

/// "a listener on its command socket 127.0.0.1:6666 (/proc/net/tcp)": what
/// shows it running beyond its process, or "" when nothing does.
std::string fm_running_sign(const FabricManagerSigns& fm) {
  if (fm.unit_active == true)
    return "its systemd unit nvidia-fabricmanager.service is active "
           "(/run/systemd/units/invocation:nvidia-fabricmanager.service)";
  if (fm.listening == true) return "a listener on its command socket " + fm.socket + " (/proc/net)";
  return "";
}

/// ", its unit not active, nothing listening on 127.0.0.1:6666", or what
/// could not be read.
std::string fm_absent_signs(const FabricManagerSigns& fm) {
  return std::string(fm.unit_active == false ? ", its systemd unit not active"
                     : fm.unit_active        ? ""
                                             : ", its systemd unit unreadable here") +
         (fm.listening == false ? ", nothing listening on its command socket " + fm.socket
          : fm.listening        ? ""
                                : ", its command socket " + fm.socket + " unreadable here");
}

/// Whether Fabric Manager runs, by its process, its unit or its command
/// socket, and the words for it; "" when nothing of this node was read (a
/// capture). In a container the host's processes are not in its /proc and
/// its own network hides the host's sockets: nothing seen there is unknown.
FmSeen fabric_manager_seen(const NodeSnapshot& s, std::string& words) {
  for (const NvidiaService& svc : s.nvidia_services)
    if (svc.what == "Fabric Manager") {
      words = fmt::format("Fabric Manager runs ({}, pid {}{})", svc.comm, svc.pid,
                          svc.unit ? ", unit " + *svc.unit : "");
      return FmSeen::kRuns;
    }
  const FabricManagerSigns fm = s.fabric_manager.value_or(FabricManagerSigns{});
  if (std::string sign = fm_running_sign(fm); !sign.empty()) {
    words = "Fabric Manager runs: " + sign;
    return FmSeen::kRuns;
  }
  const bool container = s.cuda && s.cuda->devices && s.cuda->devices->in_container;
  if (!s.nvidia_services_read && !s.fabric_manager) {
    words.clear();
    return FmSeen::kUnknown;
  }
  if (s.nvidia_services_read && !container) {
    words = "no Fabric Manager process runs on this node" +
            (s.fabric_manager ? fm_absent_signs(fm) : std::string());
    return FmSeen::kNotRunning;
  }
  words =
      "whether Fabric Manager runs is unknown here: in a container the host's processes "
      "are not seen" +
      (s.fabric_manager ? fm_absent_signs(fm) : std::string()) +
      " (a container without the host's network sees none of its sockets)";
  return FmSeen::kUnknown;
}

/// "; Fabric Manager runs (nv-fabricmanager, pid 1234, unit ...)", or that
/// none runs, or that it is unknown; empty when nothing of the node was read.
std::string fabric_manager_state(const NodeSnapshot& s) {
  std::string words;
  fabric_manager_seen(s, words);
  return words.empty() ? "" : "; " + words;
}

const std::vector<std::string> kFabricManagerCommands = {
    "systemctl status nvidia-fabricmanager",
    "sudo journalctl -u nvidia-fabricmanager -b | tail -50",
    "sudo systemctl restart nvidia-fabricmanager",
};

/// The state as the JSON writes it ("unknown(5)" for a number we cannot name).
std::string state_text(const FabricInfo& fi) {
  return name_with_code(fabric_state_name(*fi.state), fi.state_code);
}

void registration_one(const NodeSnapshot& s, const GpuState& g, std::vector<Finding>& out) {
  const FabricInfo& fi = *g.fabric;
  if (!fi.state || *fi.state == FabricState::kNotSupported) return;
  const FabricState state = *fi.state;
  bool failed = state == FabricState::kCompleted && fi.status && *fi.status != "success";
  if (state == FabricState::kCompleted && !failed) return;
  Finding f = gpu_finding("fabric.not_registered", g);
  if (state == FabricState::kInProgress) {
    f.severity = Severity::kWarning;
    f.title = gpu_label(g) + ": fabric registration still in progress";
    f.action =
        "Registration takes seconds after the driver or Fabric Manager starts: run gpu-triage "
        "again in a minute; if it stays in progress, read Fabric Manager's log.";
  } else {
    f.title = gpu_label(g) +
              (failed ? ": fabric registration failed (" + *fi.status + ")"
                      : ": not registered with the NVSwitch fabric") +
              ": CUDA will fail with 802 (system not ready)";
    f.action =
        "CUDA cannot use this GPU until it registers (cuInit returns 802 "
        "CUDA_ERROR_SYSTEM_NOT_READY): check that Fabric Manager runs and what its log says, "
        "restart it, and reboot if registration does not complete.";
  }
  f.evidence =
      fmt::format("fabric state {}, status {}", state_text(fi), fi.status.value_or("unknown")) +
      fabric_manager_state(s);
  f.commands = kFabricManagerCommands;
  out.push_back(f);
}

/// Whether the node needs Fabric Manager by its bus (NVSwitch functions)
/// while NVML says nothing of the fabric: before Hopper NVML reports no
/// fabric state, and no GPU reports a registration that FM completed nor
/// holds a CUDA process's memory (the proof that CUDA started).
bool fabric_needed_by_bus(const NodeSnapshot& s) {
  if (!s.nvswitches || s.nvswitches->empty()) return false;
  for (const GpuState& g : s.gpus) {
    if (g.fabric && g.fabric->state && *g.fabric->state != FabricState::kNotSupported) return false;
    // A CUDA process holding memory is the proof that CUDA started here.
    for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{}))
      if (p.type.find("compute") != std::string::npos && p.used_memory_bytes.value_or(0) > 0)
        return false;
  }
  return true;
}

/// The same finding as a registration NVML reports, from the bus: one
/// fact (Fabric Manager not running where it is required), one finding per
/// GPU, as registration_one says it; where whether it runs cannot be read,
/// the same finding says so, as info.
void registration_by_bus(const NodeSnapshot& s, const GpuState& g, FmSeen seen,
                         const std::string& fm_words, std::vector<Finding>& out) {
  Finding f = gpu_finding("fabric.not_registered", g);
  f.title = gpu_label(g) +
            (seen == FmSeen::kNotRunning
                 ? ": NVSwitch system without Fabric Manager: CUDA will fail with 802 (system not "
                   "ready)"
                 : ": NVSwitch system: whether Fabric Manager runs cannot be read here (without "
                   "it CUDA fails with 802)");
  if (seen == FmSeen::kUnknown) f.severity = Severity::kInfo;
  f.evidence = fmt::format(
                   "{} NVSwitch device{} on the PCI bus ({}); NVML reports no fabric state for "
                   "this GPU (before Hopper it gives none)",
                   s.nvswitches->size(), s.nvswitches->size() == 1 ? "" : "s",
                   fmt::join(*s.nvswitches, ", ")) +
               "; " + fm_words;
  f.action =
      seen == FmSeen::kNotRunning
          ? "On an NVSwitch system CUDA cannot start until Fabric Manager has configured the "
            "switches (cuInit returns 802 CUDA_ERROR_SYSTEM_NOT_READY): install the "
            "nvidia-fabricmanager package of the driver's release, enable and start it, and read "
            "its log if it does not stay up."
          : "On an NVSwitch system CUDA cannot start until Fabric Manager has configured the "
            "switches (cuInit returns 802 CUDA_ERROR_SYSTEM_NOT_READY): on the host, check that "
            "nvidia-fabricmanager is active, or run gpu-triage with the host's network and "
            "/run/systemd so its socket and unit can be read.";
  f.commands = kFabricManagerCommands;
  out.push_back(f);
}

/// The health problems the fabric reports, and whether any is critical.
std::vector<std::string> health_problems(const FabricInfo& fi, bool& critical) {
  std::vector<std::string> p;
  if (fi.bandwidth_degraded.value_or(false)) p.push_back("bandwidth degraded");
  if (fi.route_recovery_in_progress.value_or(false)) p.push_back("route recovery in progress");
  if (fi.route_unhealthy.value_or(false)) p.push_back("route unhealthy");
  if (fi.access_timeout_recovery.value_or(false)) p.push_back("access-timeout recovery");
  if (fi.incorrect_configuration && *fi.incorrect_configuration != "none") {
    p.push_back("incorrect configuration: " + *fi.incorrect_configuration);
    critical = true;
  }
  if (fi.health_summary == FabricHealthSummary::kUnhealthy) {
    p.push_back("summary unhealthy");
    critical = true;
  } else if (fi.health_summary == FabricHealthSummary::kLimitedCapacity) {
    p.push_back("summary limited capacity");
  }
  return p;
}

void health_one(const NodeSnapshot& s, const GpuState& g, std::vector<Finding>& out) {
  bool critical = false;
  std::vector<std::string> problems = health_problems(*g.fabric, critical);
  if (problems.empty()) return;
  Finding f = gpu_finding("fabric.unhealthy", g);
  if (critical) f.severity = Severity::kCritical;
  f.title = gpu_label(g) + ": fabric " + fmt::format("{}", fmt::join(problems, ", "));
  f.evidence =
      fmt::format(
          "fabric state {}, status {}, health mask {}",
          g.fabric->state ? state_text(*g.fabric) : "unknown", g.fabric->status.value_or("unknown"),
          g.fabric->health_mask ? fmt::format("0x{:08X}", *g.fabric->health_mask) : "unknown") +
      fabric_manager_state(s);
  f.action =
      "Multi-GPU jobs over NVLink run degraded or fail: drain them, then check NVLink/NVSwitch "
      "cabling and trays and Fabric Manager's log; reboot if it does not clear.";
  f.commands = kFabricManagerCommands;
  out.push_back(f);
}

/// (model, link) -> whether any GPU of that model has the link active.
std::set<std::pair<std::string, uint32_t>> active_links(const NodeSnapshot& s) {
  std::set<std::pair<std::string, uint32_t>> up;
  for (const GpuState& g : s.gpus) {
    if (!g.nvlinks) continue;
    for (const NvLink& l : *g.nvlinks)
      if (l.active.value_or(false)) up.insert({g.name.value_or(""), l.link});
  }
  return up;
}

void links_down_one(const GpuState& g, const std::set<std::pair<std::string, uint32_t>>& up,
                    std::vector<Finding>& out) {
  std::vector<uint32_t> down;
  size_t active = 0;
  for (const NvLink& l : *g.nvlinks) {
    if (l.active.value_or(false)) ++active;
    if (l.active == false && up.count({g.name.value_or(""), l.link})) down.push_back(l.link);
  }
  if (down.empty()) return;
  Finding f = gpu_finding("nvlink.link_down", g);
  // On an NVSwitch system every link is cabled: down is a fault. Without a
  // fabric (bridges on PCIe boards) a link can be inactive by design (no
  // bridge fitted there), which NVML cannot tell from a failed one.
  const bool switched =
      g.fabric && g.fabric->state && *g.fabric->state != FabricState::kNotSupported;
  if (!switched) f.severity = Severity::kWarning;
  f.title = fmt::format("{}: NVLink {} down while other {} GPUs have {} up", gpu_label(g),
                        fmt::join(down, ", "), g.name.value_or("(unnamed)"),
                        down.size() == 1 ? "it" : "them");
  f.evidence = fmt::format("{} of {} links active on this GPU; down: {}", active, g.nvlinks->size(),
                           fmt::join(down, ", "));
  if (!switched)
    f.evidence +=
        "; no NVSwitch fabric: with NVLink bridges a link may be inactive by design (no bridge "
        "fitted there): check `nvidia-smi topo -m` against the bridges installed";
  f.action =
      "Peer-to-peer traffic over this GPU is slower or fails (NCCL may hang): drain it, reset "
      "the GPU or reboot; if the link stays down, reseat or RMA.";
  f.commands = {"nvidia-smi nvlink --status -i " + std::to_string(g.index),
                "sudo nvidia-smi --gpu-reset -i " + std::to_string(g.index) +
                    "   # after stopping its processes; else reboot"};
  out.push_back(f);
}

void link_errors_one(const NodeSnapshot& s, const GpuState& g, std::vector<Finding>& out) {
  std::vector<std::string> growing;
  for (const NvLink& l : *g.nvlinks) {
    const NvLinkCounters& d = l.errors_growth;
    uint64_t retries = d.replay.value_or(0) + d.recovery.value_or(0);
    uint64_t crc = d.crc_flit.value_or(0) + d.crc_data.value_or(0);
    double crc_rate = s.sample_window_s > 0 ? crc / s.sample_window_s : 0;
    if (retries == 0 && crc_rate < kCrcPerSecondLimit) continue;
    growing.push_back(fmt::format("link {}: +{} replay, +{} recovery, +{} CRC", l.link,
                                  d.replay.value_or(0), d.recovery.value_or(0), crc));
  }
  if (growing.empty()) return;
  Finding f = gpu_finding("nvlink.errors_growing", g);
  f.title = fmt::format("{}: NVLink errors grew during the {:.0f} s window on {}", gpu_label(g),
                        s.sample_window_s, count_of(growing.size(), "link", "links"));
  f.evidence = fmt::format("{}", fmt::join(growing, "; "));
  f.action =
      "Watch the link under load (`nvidia-smi nvlink -e`); if the counters keep growing, drain "
      "the GPU and reseat or RMA it.";
  f.commands = {"nvidia-smi nvlink -e -i " + std::to_string(g.index)};
  out.push_back(f);
}

}  // namespace

void check_fabric_and_nvlink(const NodeSnapshot& s, std::vector<Finding>& out) {
  const auto up = active_links(s);
  std::string fm_words;
  const FmSeen seen = fabric_manager_seen(s, fm_words);
  const bool by_bus = fabric_needed_by_bus(s) && seen != FmSeen::kRuns && !fm_words.empty();
  for (const GpuState& g : s.gpus) {
    if (by_bus) registration_by_bus(s, g, seen, fm_words, out);
    if (g.fabric) {
      registration_one(s, g, out);
      health_one(s, g, out);
    }
    if (g.nvlinks) {
      links_down_one(g, up, out);
      link_errors_one(s, g, out);
    }
  }
}

}  // namespace gt
