// The driver's own verdict on a GPU (nvml-abi.md 8.3): NVML's GPU recovery
// action, or on older drivers and in captures the reset-required /
// drain-and-reset flags. It stands even when every ECC counter reads 0
// (after an Xid 95 they can), so it is judged on its own, never inferred
// from the counters. Severities follow DCGM's health watch for the same
// values (0 healthy; 1, 2, 4 failure; 3 warning); a value we cannot name is
// a warning, never healthy. An Xid 154 (the driver's "recovery action
// changed" message) of this or the previous boot on the same GPU is joined
// into it (join.cc).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/checks.h"

namespace gt {
namespace {

struct ActionRule {
  RecoveryAction action;
  Severity severity;
  const char* what;  ///< in the title
  const char* todo;  ///< the finding's action
};

const ActionRule kRules[] = {
    {RecoveryAction::kGpuReset, Severity::kCritical, "asks for a GPU reset",
     "Stop what runs on this GPU, then reset it (a reboot also does); its results since the "
     "fault are suspect."},
    {RecoveryAction::kNodeReboot, Severity::kCritical, "asks for a node reboot",
     "Drain the node (stop or move its jobs) and reboot it; a GPU reset is not enough."},
    {RecoveryAction::kSystemReboot, Severity::kCritical, "asks for a system reboot",
     "Drain the node (stop or move its jobs) and reboot it; a GPU reset is not enough."},
    {RecoveryAction::kBusReset, Severity::kCritical, "asks for a reset of its PCIe bus",
     "Drain the node and reboot it (a reboot resets the bus)."},
    {RecoveryAction::kDrainAndReset, Severity::kCritical,
     "asks to drain peer-to-peer traffic, then reset",
     "Drain first: stop the jobs that use this GPU and its NVLink/P2P peers; then reset the GPU "
     "(or reboot)."},
    {RecoveryAction::kDrainP2p, Severity::kWarning, "asks to drain peer-to-peer traffic",
     "Drain first: stop the jobs that use peer-to-peer (NVLink/P2P) traffic with this GPU, "
     "then run gpu-triage again."},
};

std::string reset_command(const GpuState& g) {
  return "sudo nvidia-smi --gpu-reset -i " + std::to_string(g.index) +
         "   # after stopping its processes";
}

std::vector<std::string> commands_for(RecoveryAction action, const GpuState& g) {
  using A = RecoveryAction;
  if (action == A::kGpuReset || action == A::kDrainAndReset) return {reset_command(g)};
  if (action == A::kDrainP2p) return {"nvidia-smi topo -m   # which GPUs are its P2P peers"};
  if (action == A::kNodeReboot || action == A::kSystemReboot || action == A::kBusReset)
    return {"sudo reboot   # after draining the node"};
  // An action we cannot name: read what the driver says, act on nothing.
  return {"nvidia-smi -q -i " + std::to_string(g.index) + " | grep -i -A2 recovery"};
}

/// The action to judge: NVML's / the capture's named action, else the
/// older flags. Null when nothing asks for anything.
std::optional<RecoveryAction> effective_action(const RecoveryState& r) {
  if (r.action && *r.action != RecoveryAction::kNone) return *r.action;
  if (r.reset_required.value_or(false))
    return r.drain_and_reset_recommended.value_or(false) ? RecoveryAction::kDrainAndReset
                                                         : RecoveryAction::kGpuReset;
  if (r.drain_and_reset_recommended.value_or(false)) return RecoveryAction::kDrainP2p;
  return std::nullopt;
}

std::string counters_evidence(const GpuState& g) {
  auto n = [](const auto& v) { return v ? std::to_string(*v) : std::string("unknown"); };
  return fmt::format(
      "ECC uncorrected: volatile {}, aggregate {}; remapped rows: pending {}, failure {}",
      n(g.ecc.volatile_uncorrected), n(g.ecc.aggregate_uncorrected),
      g.remapped_rows.pending ? (*g.remapped_rows.pending ? "yes" : "no") : "unknown",
      g.remapped_rows.failure ? (*g.remapped_rows.failure ? "yes" : "no") : "unknown");
}

std::string source_evidence(const RecoveryState& r) {
  std::vector<std::string> parts;
  if (r.action) {
    const std::string name = recovery_action_name(*r.action);
    parts.push_back(r.action_code
                        ? fmt::format("recovery action {} (NVML value {})", name, *r.action_code)
                        : "recovery action " + name +
                              (r.action_text ? " (\"" + *r.action_text + "\")" : ""));
  }
  if (r.reset_required)
    parts.push_back(std::string("reset required ") + (*r.reset_required ? "yes" : "no"));
  if (r.drain_and_reset_recommended)
    parts.push_back(std::string("drain and reset recommended ") +
                    (*r.drain_and_reset_recommended ? "yes" : "no"));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void recovery_one(const GpuState& g, std::vector<Finding>& out) {
  const std::optional<RecoveryAction> action = effective_action(g.recovery);
  if (!action) return;
  Finding f = gpu_finding("gpu.recovery_action", g);
  const ActionRule* rule = nullptr;
  for (const ActionRule& r : kRules)
    if (*action == r.action) rule = &r;
  if (rule) {
    f.severity = rule->severity;
    f.title = gpu_label(g) + ": the driver " + rule->what;
    f.action = rule->todo;
  } else {
    f.severity = Severity::kWarning;
    f.title = gpu_label(g) + ": the driver reports a recovery action this version cannot name (" +
              (g.recovery.action_code ? "recovery action " + std::to_string(*g.recovery.action_code)
                                      : "\"" + g.recovery.action_text.value_or("?") + "\"") +
              ")";
    f.action =
        "Do not treat the GPU as healthy: read `nvidia-smi -q` for the action, and reset or "
        "reboot as it says.";
  }
  if (!g.recovery.action && g.recovery.flags_from_deprecated_fields) {
    // No header documents these fields' values: say what was read, never
    // send the operator to a reset on a guess.
    f.severity = Severity::kWarning;
    f.title += " (deprecated reset-status field; its encoding is undocumented)";
  }
  f.evidence = source_evidence(g.recovery) + "; " + counters_evidence(g);
  f.commands = commands_for(*action, g);
  out.push_back(f);
}

}  // namespace

void check_recovery_action(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) recovery_one(g, out);
}

}  // namespace gt
