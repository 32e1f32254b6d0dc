// What differs between two fingerprints of one node (model/fingerprint.h):
// the typed result of checks/fingerprint_compare's one comparison, which
// the node's change checks word as findings (checks/change_checks.cc) and
// the fleet lists per host (fleet --drift, "drift from each host's own
// past"). Unknown values (null on either side) are never a change.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "model/fingerprint.h"

namespace gt {

enum class FingerprintChangeKind : uint8_t {
  kContainerRecreated,  ///< another container id
  kPatchGone,           ///< a package with locally modified files: gone, another version, pristine
  kDataDevice,          ///< a data path or configured mount on another device
  kGpuReplaced,         ///< another board (serial) at a bus id
  kGpuMoved,            ///< the same GPU (UUID) at another bus id
  kVbios,               ///< a GPU's VBIOS version
  kDriver,              ///< the kernel module, NVML's or libcuda's version
  kKernel,              ///< the kernel release
  kPackageVersion,      ///< a package of the GPU servers' python at another version
  kServerUnit,          ///< a systemd unit owns a GPU server now and owned none before
};

inline constexpr std::array kFingerprintChangeKinds{FingerprintChangeKind::kContainerRecreated,
                                                    FingerprintChangeKind::kPatchGone,
                                                    FingerprintChangeKind::kDataDevice,
                                                    FingerprintChangeKind::kGpuReplaced,
                                                    FingerprintChangeKind::kGpuMoved,
                                                    FingerprintChangeKind::kVbios,
                                                    FingerprintChangeKind::kDriver,
                                                    FingerprintChangeKind::kKernel,
                                                    FingerprintChangeKind::kPackageVersion,
                                                    FingerprintChangeKind::kServerUnit};

/// "container_recreated", "patch_gone", "data_device", "gpu_replaced",
/// "gpu_moved", "vbios", "driver", "kernel", "package_version", "server_unit".
constexpr const char* fingerprint_change_kind_name(FingerprintChangeKind k) {
  switch (k) {
    case FingerprintChangeKind::kContainerRecreated:
      return "container_recreated";
    case FingerprintChangeKind::kPatchGone:
      return "patch_gone";
    case FingerprintChangeKind::kDataDevice:
      return "data_device";
    case FingerprintChangeKind::kGpuReplaced:
      return "gpu_replaced";
    case FingerprintChangeKind::kGpuMoved:
      return "gpu_moved";
    case FingerprintChangeKind::kVbios:
      return "vbios";
    case FingerprintChangeKind::kDriver:
      return "driver";
    case FingerprintChangeKind::kKernel:
      return "kernel";
    case FingerprintChangeKind::kPackageVersion:
      return "package_version";
    case FingerprintChangeKind::kServerUnit:
      return "server_unit";
  }
  return "?";
}

/// What became of a package that had locally modified files.
enum class PatchFate : uint8_t {
  kNotInstalled,  ///< absent from an environment this run read
  kOtherVersion,  ///< installed at another version
  kPristine,      ///< the same version, every file checked, none modified
};

/// One change. `item`, `before` and `after` are what a person reads (the
/// fleet prints them); the prints compared travel with it for the node's
/// findings, which word each kind with more of them.
struct FingerprintChange {
  FingerprintChangeKind kind = FingerprintChangeKind::kDriver;
  /// What changed: "container", a package name, a mount path, a bus id
  /// (replaced), a GPU UUID (moved, VBIOS), "kernel module", "NVML",
  /// "libcuda", "kernel".
  std::string item;
  std::string before;  ///< the value at the baseline
  std::string after;   ///< the value now
  /// Container recreated: the new container's creation, when known, and
  /// the containers then and now (their images, where the runtime says).
  std::optional<int64_t> created_unix_s;
  std::optional<ContainerPrint> container_before, container_after;
  /// Patch gone: the package as it was (its modified files) and its fate.
  std::optional<PackagePrint> package_before;
  std::optional<PatchFate> fate;
  /// Data device: the mount then and now.
  std::optional<MountPrint> mount_before, mount_after;
  /// GPU replaced, moved, VBIOS: the GPU then and now.
  std::optional<GpuPrint> gpu_before, gpu_after;
  /// Server unit: the unit now.
  std::optional<UnitPrint> unit_after;
  bool operator==(const FingerprintChange&) const = default;
};

}  // namespace gt
