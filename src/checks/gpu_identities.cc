// A lost GPU often dies before NVML tells its bus id, name or UUID, which
// leaves the operator with "GPU 3 is lost" and, elsewhere, "Xid 79 on
// 0000:5d:00.0". Other sources still know it, and where they say it
// unambiguously we complete the GPU's identity (and say how):
// - the PCI bus: exactly one GPU bound to nvidia that no GPU NVML lists
//   accounts for, for exactly one GPU without a bus id;
// - the kernel log: an Xid 79 / "fallen off the bus" of this boot naming a
//   bus id no GPU NVML lists has (alone, or picking one of several
//   unaccounted devices on the bus);
// - the driver's /proc/driver/nvidia/gpus/<bus>/information (name, UUID),
//   else the name of a GPU with the same PCI device id.
// This is the one step of the checks that writes to the snapshot.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "checks/checks.h"
#include "model/xid_catalog.h"

namespace gt {
namespace {

/// "0000:5d:00.0" -> NVML's "00000000:5D:00.0".
std::string nvml_form(const std::string& sysfs) {
  std::string s = "0000" + sysfs;
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Devices bound to nvidia that no GPU NVML lists accounts for.
std::vector<const PciDevice*> unaccounted_devices(const NodeSnapshot& s) {
  std::vector<const PciDevice*> out;
  for (const PciDevice& d : s.pci_devices)
    if (d.driver == "nvidia" && !gpu_by_bus_id(s, d.bus_id)) out.push_back(&d);
  return out;
}

/// Bus ids this boot's kernel log says fell off the bus, that no GPU NVML
/// lists has.
std::set<std::string> fallen_bus_ids(const NodeSnapshot& s) {
  std::set<std::string> out;
  if (!s.kernel_log) return out;
  for (const KernelLogEvent& e : s.kernel_log->events) {
    bool fallen =
        e.kind == EventKind::kFallenOffBus ||
        (e.kind == EventKind::kXid && e.code && xid_facts(*e.code).cls == XidClass::kGpuGone);
    if (fallen && e.pci_bus_id && e.boot != LogBoot::kPrevious && !gpu_by_bus_id(s, *e.pci_bus_id))
      out.insert(normalize_pci_bus_id(*e.pci_bus_id));
  }
  return out;
}

struct Placement {
  std::string bus;  // sysfs form
  std::string how;
};

std::optional<Placement> place(const NodeSnapshot& s) {
  std::vector<const PciDevice*> pci = unaccounted_devices(s);
  std::set<std::string> logged = fallen_bus_ids(s);
  if (pci.size() == 1) {
    Placement p{normalize_pci_bus_id(pci[0]->bus_id), ""};
    p.how = fmt::format(
        "bus id {} from the PCI bus: the only GPU bound to nvidia that NVML does "
        "not account for",
        p.bus);
    if (logged.count(p.bus)) p.how += "; the kernel log's fallen-off-the-bus message names it too";
    return p;
  }
  if (pci.empty() && logged.size() == 1) {
    std::string bus = *logged.begin();
    return Placement{bus, fmt::format("bus id {} from the kernel log: a GPU there fell off the "
                                      "bus this boot and no GPU NVML lists has that bus id",
                                      bus)};
  }
  std::vector<std::string> both;
  for (const PciDevice* d : pci)
    if (logged.count(normalize_pci_bus_id(d->bus_id)))
      both.push_back(normalize_pci_bus_id(d->bus_id));
  if (both.size() == 1)
    return Placement{both[0], fmt::format("bus id {} from the kernel log: the one of {} GPUs on "
                                          "the PCI bus NVML does not account for that fell off "
                                          "the bus this boot",
                                          both[0], pci.size())};
  return std::nullopt;
}

const PciDevice* device_at(const NodeSnapshot& s, const std::string& bus) {
  for (const PciDevice& d : s.pci_devices)
    if (normalize_pci_bus_id(d.bus_id) == bus) return &d;
  return nullptr;
}

/// Name and UUID from the driver's information file, else the name of a
/// GPU with the same device id. Returns how, or "".
std::string complete_name(const NodeSnapshot& s, const PciDevice& d, GpuState& g) {
  std::string how;
  const std::string info = "/proc/driver/nvidia/gpus/" + d.bus_id + "/information";
  if (!g.name && d.model) {
    g.name = d.model;
    how = "name";
  }
  if (!g.uuid && d.uuid) {
    g.uuid = d.uuid;
    how += how.empty() ? "UUID" : " and UUID";
  }
  if (!how.empty()) how += " from " + info;
  if (!g.name && g.pci_device_id) {
    for (const GpuState& o : s.gpus) {
      if (&o == &g || o.pci_device_id != g.pci_device_id || !o.name) continue;
      g.name = o.name;
      how += fmt::format("{}name from GPU {}, the same PCI device id 0x{:04x}",
                         how.empty() ? "" : "; ", o.index, *g.pci_device_id >> 16);
      break;
    }
  }
  return how;
}

}  // namespace

void complete_gpu_identities(NodeSnapshot& s) {
  std::vector<GpuState*> unplaced;
  for (GpuState& g : s.gpus)
    if (!g.pci_bus_id) unplaced.push_back(&g);
  if (unplaced.size() != 1) return;
  std::optional<Placement> p = place(s);
  if (!p) return;
  GpuState& g = *unplaced[0];
  g.pci_bus_id = nvml_form(p->bus);
  std::string how = p->how;
  if (const PciDevice* d = device_at(s, p->bus)) {
    if (!g.pci_device_id && d->device_id) g.pci_device_id = (*d->device_id << 16) | 0x10de;
    if (std::string more = complete_name(s, *d, g); !more.empty()) how += "; " + more;
  }
  g.identity_derived_from = how;
}

}  // namespace gt
