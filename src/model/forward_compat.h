// CUDA forward compatibility as data: which driver branches NVIDIA supports
// it over, and the outcome for a forward-compatibility libcuda from the
// device class, the kernel module's branch and the compat library's release.
//
// The branch designations are NVIDIA's data-center driver lifecycle tables
// (docs.nvidia.com/datacenter/tesla/drivers, "Supported Drivers and CUDA
// Toolkit Versions", the 580, 615 and 620 editions; "NVIDIA CUDA and Drivers
// Support" RN-08625-001 v02 of March 2021 for R418 to R460), plus two new
// feature branches named as such by their users (ComputeCanada
// software-stack-config#70: 495 and 530; COS board-overlays' driver policy:
// 575). Forward compatibility is supported over long-term support and
// production branches only: "New Feature Branches ... are not supported
// targets for CUDA Forward Compatibility" (ComputeCanada#70, after NVIDIA's
// CUDA Compatibility guide). A branch not listed is unknown, never guessed
// (R550, R470 and R525 among them: the pages read name them end of life,
// not their designation). docs/physics.md R2b.
#pragma once

#include <optional>
#include <string_view>

namespace gt {

/// NVIDIA's designation of a driver branch.
enum class DriverBranchKind { kLongTermSupport, kProduction, kNewFeature, kEvaluation };

/// "long-term support branch", "production branch", "new feature branch",
/// "evaluation/developer branch".
const char* driver_branch_kind_name(DriverBranchKind k);

/// 535 from "535.261.03"; null when the release does not start with a number.
std::optional<int> driver_branch_of(std::string_view release);

/// The designation of branch `branch` (535); null for one the table lacks.
std::optional<DriverBranchKind> driver_branch_kind(int branch);

/// What a forward-compatibility libcuda meets, each with its own fix.
enum class ForwardCompat {
  kWorks,               ///< newer, on a data-center GPU, over an LTS or production branch
  kNotNewer,            ///< not newer than the module: cuInit 803 (R2)
  kNotOnThisDevice,     ///< a GPU without forward compatibility: cuInit 804
  kBranchNotSupported,  ///< a new feature or evaluation branch: not supported
  kDeviceUnknown,       ///< a GPU whose name does not tell its class
  kBranchUnknown,       ///< the module's branch is not in the table
};

/// The outcome for a compat libcuda over kernel module `module` (release
/// "550.163.01"), newer than it or not, on GPUs that all support forward
/// compatibility (true), one that does not (false), or one that cannot be
/// told (null). A certain failure outranks an unknown: 803, then 804, then
/// an unsupported branch.
ForwardCompat forward_compat_outcome(std::optional<bool> device_supports, bool newer_than_module,
                                     std::string_view module);

}  // namespace gt
