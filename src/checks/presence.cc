// Are all the GPUs there, and does each answer? Three counts must agree:
// what NVML enumerates, what sits on the PCI bus (sysfs, which still lists a
// GPU the driver lost), and --expect-gpus. A GPU on the bus that NVML does
// not list has usually "fallen off the bus" (Xid 79) or failed to
// initialise; one with no driver bound was never claimed by nvidia.ko.
#include <algorithm>

#include "checks/checks.h"
#include "util/plural.h"

namespace gt {
namespace {

Finding pci_finding(const char* id, const PciDevice& d) {
  Finding f = node_finding(id);
  f.subject.kind = "gpu";
  f.subject.pci_bus_id = d.bus_id;
  return f;
}

}  // namespace

const GpuState* gpu_by_bus_id(const NodeSnapshot& s, std::string_view bus_id) {
  const std::string want = normalize_pci_bus_id(bus_id);
  for (const GpuState& g : s.gpus)
    if (g.pci_bus_id && normalize_pci_bus_id(*g.pci_bus_id) == want) return &g;
  return nullptr;
}

std::string gpu_label(const GpuState& g) {
  std::string s = "GPU " + std::to_string(g.index);
  if (g.pci_bus_id) s += " (" + normalize_pci_bus_id(*g.pci_bus_id) + ")";
  return s;
}

Finding gpu_finding(const char* id, const GpuState& g) {
  Finding f = node_finding(id);
  f.subject.kind = "gpu";
  f.subject.gpu_index = g.index;
  f.subject.gpu_uuid = g.uuid;
  if (g.pci_bus_id) f.subject.pci_bus_id = normalize_pci_bus_id(*g.pci_bus_id);
  return f;
}

namespace {

/// What was found of NVIDIA's software on a machine with no NVIDIA GPU.
std::string software_found(const NodeSnapshot& s) {
  std::string lib =
      s.nvml.loaded
          ? "NVML library " + s.nvml.library_version.value_or("(version unknown)") +
                " installed (" + s.nvml.library_file.value_or(s.nvml.library_path.value_or("?")) +
                ")" +
                (s.nvml.init_error
                     ? ", init " + nvml_init_error_word(*s.nvml.init_error, s.nvml.init_return_name)
                     : "")
          : "no NVML library (" + s.nvml.library_path.value_or("libnvidia-ml.so.1") + ")";
  return "no NVIDIA GPU on the PCI bus, no nvidia module, " + lib;
}

/// --expect-gpus on a machine with no NVIDIA GPU at all: the count is
/// wrong, whatever else is. No modprobe: there is no device for a driver.
/// The advice follows the machine: a VM's GPUs come from its hypervisor.
void expected_but_none(const NodeSnapshot& s, uint32_t expected, std::vector<Finding>& out) {
  Finding f = node_finding("gpu.count_mismatch");
  f.title = "No NVIDIA GPU on this machine, expected " + std::to_string(expected);
  f.evidence = software_found(s) + "; --expect-gpus " + std::to_string(expected);
  const std::string kind = s.machine_kind.value_or("");
  if (s.machine_evidence) f.evidence += "; " + *s.machine_evidence;
  if (kind == "vm") {
    f.action =
        "This is a VM and the hypervisor did not pass the GPUs through (after a restart or a "
        "migration the devices may not have been reattached). Check the VM's PCI passthrough "
        "(or the cloud instance type) on the host, then restart the VM with the GPUs attached.";
    f.commands = {"lspci -nn | grep -i nvidia",
                  "sudo dmesg -T | grep -i -E 'pci|iommu' | tail -40"};
  } else if (kind == "bare-metal") {
    f.action =
        "The GPUs are gone from the PCI bus itself: check the BIOS (PCIe slots and "
        "above-4G decoding enabled), the slots, risers and seating, and the GPUs' power "
        "(cables, PSUs, the BMC's event log), then power-cycle the node.";
    f.commands = {"lspci -nn | grep -i nvidia", "sudo dmesg -T | grep -i -E 'pci|aer' | tail -40",
                  "sudo ipmitool sel list | tail -20"};
  } else {
    f.action =
        "The GPUs are gone from the PCI bus itself. On a VM, check the passthrough (the "
        "hypervisor still assigns the devices, the VM was started with them); on bare metal, "
        "check the BIOS, slots and power, then power-cycle.";
    f.commands = {"lspci -nn | grep -i nvidia",
                  "sudo dmesg -T | grep -i -E 'pci|nvidia' | tail -40"};
  }
  out.push_back(f);
}

}  // namespace

void check_presence(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out) {
  if (no_nvidia_gpu(s) && o.expect_gpus.value_or(0) > 0)
    return expected_but_none(s, *o.expect_gpus, out);
  if (!s.nvml.initialized) return;
  const size_t before = out.size();
  const uint32_t nvml = s.gpu_count.value_or(0);
  const uint32_t pci = static_cast<uint32_t>(s.pci_devices.size());
  // A lost GPU may have died before saying its bus id; such GPUs account
  // for that many unmatched devices on the bus (reported as lost instead).
  int unplaced = static_cast<int>(
      std::count_if(s.gpus.begin(), s.gpus.end(), [](const GpuState& g) { return !g.pci_bus_id; }));
  for (const PciDevice& d : s.pci_devices) {
    if (gpu_by_bus_id(s, d.bus_id)) continue;
    if (d.driver && *d.driver == "nvidia" && unplaced > 0) {
      --unplaced;
      continue;
    }
    if (!d.driver) {
      Finding f = pci_finding("gpu.no_driver_bound", d);
      f.title = "GPU " + d.bus_id + " is on the PCI bus but no driver is bound to it";
      f.evidence = "sysfs " + d.bus_id + ": vendor 0x10de, no driver symlink";
      f.action =
          "Read the kernel log for why nvidia did not claim it; reboot; if it stays "
          "unclaimed, reseat or RMA the GPU.";
      f.commands = {"sudo dmesg -T | grep -i " + d.bus_id.substr(5), "lspci -vvv -s " + d.bus_id};
      out.push_back(f);
    } else if (*d.driver == "nvidia") {
      Finding f = pci_finding("gpu.missing_from_nvml", d);
      f.title =
          "GPU " + d.bus_id + " is on the PCI bus but NVML does not list it (fallen off the bus?)";
      f.evidence = "bound to nvidia in sysfs; NVML lists " + count_of(nvml, "GPU", "GPUs");
      if (d.model || d.uuid)
        f.evidence +=
            "; the driver names it " + d.model.value_or("?") + (d.uuid ? " " + *d.uuid : "");
      f.subject.gpu_uuid = d.uuid;
      f.action = "Drain the node and reboot; if the GPU is still missing, reseat or RMA it.";
      f.commands = {"sudo dmesg -T | grep -E 'fallen off|Xid' | tail", "sudo reboot"};
      out.push_back(f);
    }
  }
  // A capture says how many GPUs are attached; when it describes fewer it
  // was cut, and nothing can be said about the GPUs it left out.
  const bool capture = !pci_bus_read(s.source);
  if (capture && nvml > s.gpus.size()) {
    Finding f = node_finding("capture.incomplete");
    f.title = "The capture names " + std::to_string(nvml) + " attached GPUs but describes " +
              std::to_string(s.gpus.size());
    f.evidence = "<attached_gpus> " + std::to_string(nvml) + ", <gpu> elements " +
                 std::to_string(s.gpus.size());
    f.action =
        "Only the GPUs it describes were judged. Take a whole capture on that node "
        "(nvidia-smi -q -x > node.xml) or run gpu-triage there.";
    out.push_back(f);
    return;
  }
  // The PCI bus is this node's: a capture's was not read.
  const uint32_t expected = std::max(o.expect_gpus.value_or(0), capture ? 0u : pci);
  if (nvml < expected || (!capture && o.expect_gpus && pci < *o.expect_gpus)) {
    Finding f = node_finding("gpu.count_mismatch");
    f.title =
        "NVML sees " + count_of(nvml, "GPU", "GPUs") + ", expected " + std::to_string(expected);
    f.evidence = "NVML " + std::to_string(nvml) + ", PCI bus " +
                 (capture ? std::string("not read (a capture)") : std::to_string(pci)) +
                 (o.expect_gpus ? ", --expect-gpus " + std::to_string(*o.expect_gpus) : "");
    f.action =
        "A GPU is missing: drain the node and reboot; if it does not come back, inspect "
        "the hardware (power, riser, seating).";
    f.commands = {"lspci -d 10de: -nn", "sudo reboot"};
    out.push_back(f);
  }
  if (out.size() == before) {
    bool all_ok = std::all_of(s.gpus.begin(), s.gpus.end(),
                              [](const GpuState& g) { return g.status == GpuStatus::kOk; });
    if (all_ok && nvml > 0) {
      Finding f = node_finding("gpu.all_present");
      f.title = nvml == 1 ? std::string("The GPU is present and answering")
                          : "All " + std::to_string(nvml) + " GPUs present and answering";
      f.evidence = (capture ? "the capture: " + count_of(nvml, "attached GPU", "attached GPUs") +
                                  ", all described (the PCI bus is its node's, "
                                  "not read)"
                            : "NVML " + std::to_string(nvml) + ", PCI bus " + std::to_string(pci)) +
                   (o.expect_gpus ? ", expected " + std::to_string(*o.expect_gpus) : "");
      out.push_back(f);
    }
  }
}

void check_gpu_health(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) {
    if (g.status == GpuStatus::kLost) {
      Finding f = gpu_finding("gpu.lost", g);
      f.title = gpu_label(g) + " is lost: it fell off the bus or stopped responding";
      f.evidence = g.status_detail.value_or("NVML_ERROR_GPU_IS_LOST");
      if (g.identity_derived_from) f.evidence += "; " + *g.identity_derived_from;
      f.action =
          "Stop the jobs on this node and reboot it (a GPU reset rarely recovers a lost "
          "GPU); if it recurs, check power and seating, then RMA.";
      f.commands = {"sudo dmesg -T | grep -E 'Xid|fallen off' | tail", "sudo reboot"};
      out.push_back(f);
    } else if (g.status == GpuStatus::kUnresponsive) {
      Finding f = gpu_finding("gpu.unresponsive", g);
      f.title =
          gpu_label(g) + " did not answer: stuck in " + g.stuck_in_call.value_or("an NVML call");
      f.evidence = g.status_detail.value_or("");
      if (g.identity_derived_from) f.evidence += "; " + *g.identity_derived_from;
      f.action =
          "The GPU or its driver is wedged; any program touching it will hang too. Read "
          "the kernel log, then reboot the node.";
      f.commands = {"sudo dmesg -T | grep -E 'NVRM|Xid' | tail -40", "sudo reboot"};
      out.push_back(f);
    } else if (g.status == GpuStatus::kInaccessible) {
      Finding f = gpu_finding("gpu.inaccessible", g);
      f.title = gpu_label(g) + " cannot be opened";
      f.evidence = g.status_detail.value_or("");
      f.action = "Check permissions on /dev/nvidia*, the power cables and the kernel log.";
      f.commands = {"ls -l /dev/nvidia*", "sudo dmesg -T | grep NVRM | tail"};
      out.push_back(f);
    } else if (!g.errors.empty()) {
      Finding f = gpu_finding("gpu.query_errors", g);
      f.title = gpu_label(g) + ": " + std::to_string(g.errors.size()) + " NVML queries failed";
      for (const std::string& e : g.errors) f.evidence += (f.evidence.empty() ? "" : "; ") + e;
      f.action = "The values those queries give are unknown; see the kernel log if it persists.";
      out.push_back(f);
    }
  }
}

}  // namespace gt
