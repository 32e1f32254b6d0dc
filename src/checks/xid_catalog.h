// The Xid (GPU) and SXid (NVSwitch) catalogue as one table, built from
// shared/reference/xid-catalog.md: NVIDIA's mnemonic, description and
// resolution buckets, a severity from the doc's "Practical severity grouping",
// and a short imperative for operators.
#pragma once

#include <optional>
#include <string_view>

#include "model/finding.h"

namespace gt {

/// One catalogue row. Strings are never null ("" when the doc gives none).
struct XidEntry {
  int code;
  const char* mnemonic;              ///< NVIDIA's name ("ROBUST_CHANNEL_GPU_ECC_DBE")
  const char* description;           ///< what it means, one phrase
  Severity severity;                 ///< for one occurrence; checks may raise it on repeats
  const char* immediate_action;      ///< NVIDIA bucket ("RESET_GPU", "RESTART_APP"...)
  const char* investigatory_action;  ///< NVIDIA bucket for recurrence / root cause
  const char* action_text;           ///< imperative for operators, commands named
};

/// The Xid row for `code`; nullptr for a code not in the catalogue (report
/// those as "unknown Xid N", never drop them).
const XidEntry* find_xid(int code);

/// The SXid (NVSwitch, nvidia-nvswitch driver) row for `code`; nullptr if unknown.
const XidEntry* find_sxid(int code);

/// Severity and action for "GPU has fallen off the bus" printed without an
/// Xid (kernel-log kind "fallen-off-bus"): the Xid 79 row.
const XidEntry& fallen_off_bus_entry();

/// The new recovery action an Xid 154 detail announces: "GPU recovery action
/// changed from 0x0 (None) to 0x1 (GPU Reset Required)" -> 1 (the number after
/// "to", as nvmlDeviceGpuRecoveryAction_t). nullopt if not found.
std::optional<int> xid154_recovery_action(std::string_view detail);

/// "none", "gpu-reset", "node-reboot", "drain-p2p", "drain-and-reset",
/// "recover-imex-domain"; "unknown" otherwise.
const char* recovery_action_name(int action);

/// kInfo for none, kCritical for reset / reboot / drain-and-reset, kWarning
/// for drain-p2p, recover-imex-domain and unknown values.
Severity recovery_action_severity(int action);

/// The Xid an Xid 45 says caused it ("... caused by previous Xid 149" -> 149).
std::optional<int> caused_by_xid(std::string_view detail);

}  // namespace gt
