#include "model/fingerprint.h"

#include <algorithm>

#include "model/snapshot.h"

namespace gt {

namespace {

DriverPrint driver_of(const NodeSnapshot& s) {
  DriverPrint d;
  d.kernel_module_version = s.kernel_module_version;
  d.nvml_driver_version = s.driver_version;
  d.nvml_library_file = s.nvml.library_file;
  if (!s.cuda) return d;
  // The libcuda a new job would load: the context without a pid.
  for (const LoaderContext& c : s.cuda->loaders) {
    if (c.pid) continue;
    for (const ResolvedLibrary& l : c.libraries)
      if (l.soname == "libcuda.so.1") {
        d.libcuda_version = l.version;
        d.libcuda_file = l.file;
      }
  }
  return d;
}

MountPrint mount_of(const MountInfo& m) {
  return {m.path, m.source, m.mounted_device, m.fs_type, m.expected_by};
}

/// Each unit once, in the servers' order.
std::vector<UnitPrint> units_of(const std::vector<Server>& servers) {
  std::vector<UnitPrint> out;
  for (const Server& sv : servers) {
    const bool unit =
        sv.owner_kind == OwnerKind::kSystemdUnit || sv.owner_kind == OwnerKind::kSystemdUserUnit;
    if (!unit || !sv.owner_name || sv.graphics_only) continue;
    const bool known = std::any_of(out.begin(), out.end(),
                                   [&](const UnitPrint& u) { return u.unit == *sv.owner_name; });
    if (!known)
      out.push_back({*sv.owner_name, sv.kind, sv.restart_policy, sv.auto_started,
                     sv.owner_kind == OwnerKind::kSystemdUserUnit});
  }
  return out;
}

}  // namespace

Fingerprint fingerprint_of(const NodeSnapshot& s, int64_t taken_unix_s) {
  Fingerprint f;
  f.taken_unix_s = taken_unix_s;
  for (const GpuState& g : s.gpus) {
    GpuPrint p{g.uuid,       g.serial,     g.vbios_version,    std::nullopt,
               std::nullopt, std::nullopt, g.board_part_number};
    if (g.pci_bus_id) p.pci_bus_id = normalize_pci_bus_id(*g.pci_bus_id);
    p.pcie_max_gen = g.pcie.device_max_gen ? g.pcie.device_max_gen : g.pcie.max_gen;
    p.pcie_max_width = g.pcie.max_width;
    f.gpus.push_back(p);
  }
  f.driver = driver_of(s);
  f.kernel_release = s.kernel_release;
  for (const MountInfo& m : s.mounts)
    if (!m.error) f.mounts.push_back(mount_of(m));
  if (s.servers) f.server_units = units_of(*s.servers);
  return f;
}

const PackagePrint* find_package(const Fingerprint& f, const std::string& name) {
  for (const PythonEnvPrint& e : f.python)
    for (const PackagePrint& p : e.packages)
      if (p.name == name) return &p;
  return nullptr;
}

}  // namespace gt
