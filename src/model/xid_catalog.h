// The Xid (GPU) and SXid (NVSwitch) catalogue as one table, built from
// shared/reference/xid-catalog.md: NVIDIA's mnemonic, description and
// resolution buckets, a severity from the doc's "Practical severity grouping",
// and a short imperative for operators.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/driver_recovery.h"
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

/// What kind of event an Xid is: the one rule every layer asks (history,
/// fleet correlation, the application-fault check, the kernel-log grouping),
/// from the reference's "Practical severity grouping".
enum class XidClass {
  kApplication,  ///< the job's doing, node healthy: 8, 13, 31, 43, 45, 68, 69, 80
  kFabric,       ///< NVLink / fabric: 74, 144-150
  kGpuGone,      ///< fallen off the bus: 79
  kRecovery,     ///< the driver's recovery action: 154
  kMemory,       ///< ECC and row remapping: 48, 63, 64, 92, 94, 95
  kInfo,         ///< informational: 93, 156, 162-164
  kOther,        ///< everything else (driver, firmware, power, unknown codes)
};

/// "application", "fabric", "gpu-gone", "recovery", "memory", "info", "other".
const char* xid_class_name(XidClass c);

/// How an Xid's payload (the text after the code) decodes.
enum class XidPayload {
  kNone,
  kGraphicsException,  ///< 13: "Graphics Exception: ..." / SM warp exceptions
  kMmuFault,           ///< 31: "MMU Fault: ENGINE ... faulted @ 0x..."
  kNvlink,             ///< 74: NVLink error registers
  kNvlink5,            ///< 144-150: NVLink5 error registers
  kRecoveryAction,     ///< 154: "GPU recovery action changed from ... to ..."
};

/// What an Xid says of row remapping (NVIDIA's Xid 48 workflow asks whether
/// one of these followed the double-bit error).
enum class XidRemap {
  kNone,
  kPending,  ///< 63: a row remap is pending (a reset activates it)
  kFailed,   ///< 64: the row remap failed (an RMA case)
};

/// The Xid number NVML's event data carries when the driver reported an Xid
/// it has no number for.
constexpr int kNvmlUnknownXid = 999;

/// The catalogue's facts about one code beyond its row: class, payload
/// decoding, the code it cancels (Xid 162 cancels an earlier 163) and
/// whether it is a consequence of another Xid (43 follows a 13/31, 45 names
/// its cause) rather than a cause of its own.
struct XidFacts {
  XidClass cls = XidClass::kOther;
  XidPayload payload = XidPayload::kNone;
  std::optional<int> cancels;
  bool consequence = false;
  XidRemap remap = XidRemap::kNone;
  /// Its workflow asks "did a remap Xid (63/64) follow?" (48).
  bool asks_remap_followed = false;
};

/// Facts for any code, catalogued or not (unknown codes are kOther).
XidFacts xid_facts(int code);

inline bool is_application_xid(int code) { return xid_facts(code).cls == XidClass::kApplication; }

/// "gpu.xid.N": the id of the finding that reports Xid `code`.
std::string xid_finding_id(int code);

/// The code an Xid 163 is cancelled by (162); nullopt for other codes.
std::optional<int> xid_cancelled_by(int code);

/// The Xid row for `code`; nullptr for a code not in the catalogue (report
/// those as "unknown Xid N", never drop them).
const XidEntry* find_xid(int code);

/// The SXid (NVSwitch, nvidia-nvswitch driver) row for `code`; nullptr if unknown.
const XidEntry* find_sxid(int code);

/// Severity and action for "GPU has fallen off the bus" printed without an
/// Xid (kernel-log kind "fallen-off-bus"): the Xid 79 row.
const XidEntry& fallen_off_bus_entry();

/// The new recovery action an Xid 154 detail announces: "GPU recovery action
/// changed from 0x0 (None) to 0x1 (GPU Reset Required)" -> kGpuReset (the
/// number after "to", as nvmlDeviceGpuRecoveryAction_t:
/// recovery_action_of_code). nullopt if not found.
std::optional<RecoveryAction> xid154_recovery_action(std::string_view detail);

/// How an Xid 154 announcing `action` is graded: kInfo for none, kCritical
/// for a GPU reset, a node reboot or a drain and reset, kWarning for the
/// rest (drain P2P, bus reset, system reboot, unknown values).
Severity recovery_action_severity(RecoveryAction action);

/// The Xid an Xid 45 says caused it ("... caused by previous Xid 149" -> 149).
std::optional<int> caused_by_xid(std::string_view detail);

}  // namespace gt
