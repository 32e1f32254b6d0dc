#include "model/forward_compat.h"

#include <array>
#include <charconv>

namespace gt {
namespace {

struct BranchDesignation {
  int branch;
  DriverBranchKind kind;
};

// The sources are in the header; one row per branch they name.
constexpr std::array<BranchDesignation, 14> kBranches = {{
    {418, DriverBranchKind::kLongTermSupport},
    {440, DriverBranchKind::kNewFeature},
    {450, DriverBranchKind::kLongTermSupport},
    {455, DriverBranchKind::kEvaluation},
    {460, DriverBranchKind::kProduction},
    {495, DriverBranchKind::kNewFeature},
    {530, DriverBranchKind::kNewFeature},
    {535, DriverBranchKind::kLongTermSupport},
    {570, DriverBranchKind::kProduction},
    {575, DriverBranchKind::kNewFeature},
    {580, DriverBranchKind::kLongTermSupport},
    {595, DriverBranchKind::kProduction},
    {610, DriverBranchKind::kNewFeature},
    {620, DriverBranchKind::kLongTermSupport},
}};

}  // namespace

const char* driver_branch_kind_name(DriverBranchKind k) {
  switch (k) {
    case DriverBranchKind::kLongTermSupport:
      return "long-term support branch";
    case DriverBranchKind::kProduction:
      return "production branch";
    case DriverBranchKind::kNewFeature:
      return "new feature branch";
    case DriverBranchKind::kEvaluation:
      return "evaluation/developer branch";
  }
  return "?";
}

std::optional<int> driver_branch_of(std::string_view release) {
  int branch = 0;
  auto [p, ec] = std::from_chars(release.data(), release.data() + release.size(), branch);
  if (ec != std::errc() || p == release.data() || branch <= 0) return std::nullopt;
  if (p != release.data() + release.size() && *p != '.') return std::nullopt;
  return branch;
}

std::optional<DriverBranchKind> driver_branch_kind(int branch) {
  for (const BranchDesignation& b : kBranches)
    if (b.branch == branch) return b.kind;
  return std::nullopt;
}

ForwardCompat forward_compat_outcome(std::optional<bool> device_supports, bool newer_than_module,
                                     std::string_view module) {
  if (!newer_than_module) return ForwardCompat::kNotNewer;
  if (device_supports == false) return ForwardCompat::kNotOnThisDevice;
  const std::optional<int> branch = driver_branch_of(module);
  const std::optional<DriverBranchKind> kind = branch ? driver_branch_kind(*branch) : std::nullopt;
  if (kind == DriverBranchKind::kNewFeature || kind == DriverBranchKind::kEvaluation)
    return ForwardCompat::kBranchNotSupported;
  if (!device_supports) return ForwardCompat::kDeviceUnknown;
  if (!kind) return ForwardCompat::kBranchUnknown;
  return ForwardCompat::kWorks;
}

}  // namespace gt
