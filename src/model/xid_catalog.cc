// The Xid / SXid catalogue, transcribed from shared/reference/xid-catalog.md.
//
// Columns: code, mnemonic and description, then NVIDIA's two resolution
// buckets (Immediate / Investigatory, from the Xid-Catalog via gpud's
// catalog_generated.go), a severity and an operator imperative. Severity
// follows the doc's "Practical severity grouping": application-class Xids
// (8, 13, 31, 43, 45, 68, 69, 80) are warnings (the node is healthy, a job
// died); reset-GPU / drain and reboot-node groups are critical; the
// informational group (63, 93, 94, 156, 162-164) is info; hardware-watch
// codes that need a rate to judge (92) are warnings. Codes outside the
// grouping get the severity their NVIDIA bucket implies (RESET_GPU ->
// critical, RESTART_APP / CONTACT_SUPPORT -> warning, IGNORE -> info). 109 is
// "reset if persistent", so a single one is a warning. NVLink5 (144-150) and
// SXid lines say Fatal/Non-fatal in their text; the row gives the severity
// of the usual case and the check may raise it. Xids the doc only names as
// legacy (56, 57, 65) are included with their legacy meaning.
#include "model/xid_catalog.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace gt {
namespace {

constexpr Severity kI = Severity::kInfo;
constexpr Severity kW = Severity::kWarning;
constexpr Severity kC = Severity::kCritical;

#define RESET_TEXT                                                                    \
  "Drain the GPU's workloads and reset it (nvidia-smi -r -i <index>); reboot if the " \
  "reset fails. If it recurs, run diagnostics (dcgmi diag -r 3) and contact support"
#define APP_TEXT                                                                      \
  "Restart the application; debug it (compute-sanitizer, cuda-gdb). If it recurs on " \
  "this GPU only or across applications, run diagnostics (dcgmi diag -r 3)"

// Sorted by code (find_xid uses binary search).
constexpr XidEntry kXids[] = {
    {8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", kW, "RESTART_APP",
     "CONTACT_SUPPORT", "Restart the application; contact support if it recurs"},
    {13, "ROBUST_CHANNEL_GR_EXCEPTION",
     "Graphics Engine Exception (SM warp exception, "
     "out-of-range address, illegal instruction)",
     kW, "RESTART_APP", "WORKFLOW_XID_13", APP_TEXT},
    {31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault (MMU fault)", kW,
     "RESTART_APP", "WORKFLOW_XID_31", APP_TEXT},
    {32, "ROBUST_CHANNEL_PBDMA_ERROR", "Invalid or corrupted push buffer stream (PCIe quality)", kW,
     "RESTART_APP", "CHECK_APP/CUDA",
     "Restart the application; if it persists, reboot and inspect the PCIe path (riser, slot, "
     "nvidia-smi -q -d PCIE replay counter)"},
    {38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "Driver firmware error", kW, "IGNORE",
     "CONTACT_SUPPORT", "Reboot the node if GPUs misbehave; contact support if it recurs"},
    {43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
     "GPU stopped processing (channel reset after "
     "an application fault)",
     kW, "IGNORE", "CONTACT_SUPPORT",
     "No node action: the application died (usually after Xid 13/31 for the same process); "
     "debug the application"},
    {44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "Graphics engine fault during context switch", kW,
     "IGNORE", "CONTACT_SUPPORT", "Reboot the node if it recurs; contact support"},
    {45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "Preemptive cleanup after a previous error", kW,
     "WORKFLOW_XID_45", "Solo: RESTART_FM; Not solo: IGNORE (follow other Xid)",
     "Act on the Xid that caused it (\"caused by previous Xid N\"); if it appears alone on an "
     "NVSwitch system, restart Fabric Manager (systemctl restart nvidia-fabricmanager)"},
    {46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", kC, "RESET_GPU",
     "CONTACT_SUPPORT", RESET_TEXT},
    {48, "ROBUST_CHANNEL_GPU_ECC_DBE", "Double-bit (uncorrectable) ECC error", kC,
     "WORKFLOW_XID_48", "WORKFLOW_XID_48",
     "Drain the node and reset the GPU (nvidia-smi -r -i <index>) or reboot; if no Xid 63/64 "
     "followed, run the field diagnostic; repeated DBEs: RMA"},
    {54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", "Auxiliary power not connected to the GPU board",
     kW, "CHECK_MECHANICALS", "CONTACT_SUPPORT", "Check the GPU's auxiliary power cabling"},
    {56, "DISPLAY_CHANNEL_EXCEPTION", "Display engine error (legacy GPUs)", kW, "CONTACT_SUPPORT",
     "", "Reboot if the display stays broken; contact support if it recurs"},
    {57, "FB_LINK_TRAINING_FAILURE_ERROR", "Video memory interface programming error (legacy GPUs)",
     kW, "CONTACT_SUPPORT", "", "Reboot; contact support if it recurs"},
    {61, "PMU_BREAKPOINT", "Internal micro-controller breakpoint/warning", kW, "CONTACT_SUPPORT",
     "", "Reset the GPU (nvidia-smi -r -i <index>) or reboot; contact support if it recurs"},
    {62, "PMU_HALT_ERROR", "Internal micro-controller halt", kC, "RESET_GPU", "CONTACT_SUPPORT",
     RESET_TEXT},
    {63, "INFOROM_DRAM_RETIREMENT_EVENT",
     "Row-remapping (page-retirement) recording event: a row "
     "is pending remap until a GPU reset",
     kI, "IGNORE", "IGNORE",
     "Reset the GPU (nvidia-smi -r -i <index>) at a convenient time to activate the remap; after "
     "Xid 48, drain and reset now"},
    {64, "INFOROM_DRAM_RETIREMENT_FAILURE",
     "Row-remapping (page-retirement) failure: memory "
     "self-repair exhausted",
     kC, "RESET_GPU", "CONTACT_SUPPORT",
     "Drain the node and reboot now; a remap failure is an RMA criterion: contact support"},
    {65, "ROBUST_CHANNEL_NVENC1_ERROR", "Video processor exception (legacy GPUs)", kW,
     "CONTACT_SUPPORT", "", "Restart the application; contact support if it recurs"},
    {68, "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 (video decoder) exception", kW, "RESTART_APP",
     "CONTACT_SUPPORT", "Restart the application; contact support if it recurs"},
    {69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "Graphics Engine class error", kW, "RESTART_APP",
     "CHECK_APP/CUDA", "Restart the application; reboot if it persists"},
    {74, "NVLINK_ERROR", "NVLink error (link fault between GPUs or to an NVSwitch)", kC,
     "WORKFLOW_NVLINK_ERR", "CONTACT_SUPPORT",
     "Reset the GPU (nvidia-smi -r -i <index>) or reboot to clear it; check the peer GPU/NVSwitch "
     "and nvidia-smi nvlink -e; recurring on one link: hardware inspection"},
    {79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
     "GPU has fallen off the bus (unreachable "
     "over PCIe)",
     kC, "RESTART_BM", "CONTACT_SUPPORT",
     "Drain the node and reboot; if it recurs, reseat/RMA the GPU (check power and PCIe riser)"},
    {80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "Corrupted data sent to GPU", kW, "RESTART_APP",
     "CHECK_APP/CUDA", "Restart the application; if it recurs, inspect the PCIe path"},
    {92, "EXCESSIVE_SBE_INTERRUPTS", "High single-bit ECC error rate", kW, "IGNORE",
     "CONTACT_SUPPORT",
     "Monitor corrected ECC counts (nvidia-smi -q -d ECC); an excessive rate may qualify for RMA"},
    {93, "INFOROM_ERASE_LIMIT_EXCEEDED",
     "Non-fatal violation of the provisioned InfoROM wear "
     "limit",
     kI, "IGNORE", "CONTACT_SUPPORT", "No action needed"},
    {94, "ROBUST_CHANNEL_CONTAINED_ERROR", "Contained uncorrectable memory (ECC) error", kI,
     "RESTART_APP", "IGNORE (sympathetic)",
     "Restart the application that hit it; schedule a GPU reset (nvidia-smi -r -i <index>) to "
     "activate the row remap"},
    {95, "ROBUST_CHANNEL_UNCONTAINED_ERROR",
     "Uncontained uncorrectable memory (ECC) error: all "
     "applications on the GPU affected",
     kC, "RESET_GPU", "IGNORE (sympathetic)",
     "Drain the GPU and reset it now (nvidia-smi -r -i <index>); reboot the node if a reset is "
     "not possible"},
    {109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "Context-switch timeout", kW, "RESET_GPU",
     "CONTACT_SUPPORT",
     "Restart the application; if it persists, drain and reset the GPU (nvidia-smi -r -i <index>)"},
    {110, "SEC_FAULT_ERROR", "Security fault", kC, "RESET_GPU", "INVESTIGATE_SW", RESET_TEXT},
    {119, "GSP_RPC_TIMEOUT", "GSP RPC timeout: the GSP firmware did not answer in time", kC,
     "RESET_GPU", "INVESTIGATE_SW",
     "Drain the GPU's workloads and reset it (nvidia-smi -r -i <index>); power-cycle the node if "
     "it persists"},
    {120, "GSP_ERROR", "GSP error", kC, "RESET_GPU", "INVESTIGATE_SW",
     "Drain the GPU's workloads and reset it (nvidia-smi -r -i <index>); power-cycle the node if "
     "it persists"},
    {121, "C2C_ERROR", "C2C (chip-to-chip) link error", kW, "IGNORE", "CONTACT_SUPPORT",
     "Reboot if GPUs misbehave; contact support if it recurs"},
    {136, "ALI_TRAINING_FAIL", "NVLink link training failed", kC, "RESET_GPU",
     "INVESTIGATE_LINK_SI", "Reset the GPU (nvidia-smi -r -i <index>); check the NVLink links"},
    {137, "NVLINK_PRIV_ERR", "NVLink privilege error", kI, "IGNORE", "XID_137_FLOW",
     "No immediate action; follow NVIDIA's Xid 137 flow if it recurs"},
    {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "ECC unrecovered error (escaped containment)", kC,
     "RESET_GPU", "CONTACT_SUPPORT", RESET_TEXT},
    {143, "GPU_INIT_ERROR", "GPU initialization failure", kC, "RESET_GPU", "CONTACT_SUPPORT",
     RESET_TEXT},
    {144, "NVLINK_SAW_ERROR", "NVLink5 SAW unit error", kW, "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {145, "NVLINK_RLW_ERROR", "NVLink5 RLW unit error", kW, "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {146, "NVLINK_TLW_ERROR", "NVLink5 TLW unit error", kW, "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {147, "NVLINK_TREX_ERROR", "NVLink5 TREX unit error", kW, "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink5 NVLPW_CTRL unit error", kW, "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {149, "NVLINK_NETIR_ERROR", "NVLink5 NETIR unit error (link events, link down)", kW,
     "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {150, "NVLINK_MSE_ERROR", "NVLink5 MSE unit error", kW, "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR",
     "If the line says Fatal, drain and reset the GPU (nvidia-smi -r -i <index>); Nonfatal: "
     "watch for recurrence on the same link"},
    {151, "ROBUST_CHANNEL_KEY_ROTATION_ERROR", "Key rotation error (confidential computing)", kC,
     "RESTART_VM", "CONTACT_SUPPORT", "Restart the VM; contact support if it recurs"},
    {154, "GPU_RECOVERY_ACTION_CHANGED",
     "GPU recovery action changed (announces the action "
     "another Xid needs)",
     kW, "XID_154", "N/A",
     "Do what it announces: GPU Reset Required -> drain and nvidia-smi -r -i <index>; Node/OS "
     "Reboot Required -> drain and reboot; Drain P2P / Drain and Reset accordingly; None -> "
     "nothing"},
    {155, "NVLINK_SW_DEFINED_ERROR", "NVLink software-defined error", kC, "RESET_GPU",
     "INVESTIGATE_SW_USER", RESET_TEXT},
    {156, "RESOURCE_RETIREMENT_EVENT", "Resource retirement event (repair pending a reset)", kI,
     "RESET_GPU", "IGNORE",
     "Reset the GPU (nvidia-smi -r -i <index>) at a convenient time to activate the repair"},
    {157, "RESOURCE_RETIREMENT_FAILURE", "Resource retirement failure (repair exhausted)", kW,
     "IGNORE", "CONTACT_SUPPORT", "Contact support (possible RMA)"},
    {158, "GPU_FATAL_TIMEOUT", "GPU fatal timeout", kC, "RESET_GPU", "CONTACT_SUPPORT", RESET_TEXT},
    {159, "ROBUST_CHANNEL_CHI_NON_DATA_ERROR", "CHI non-data error", kW, "CHECK_UVM",
     "SYMPATHETIC_REPORT_SOLO", "Check UVM/C2C health; contact support if it recurs"},
    {162, "PSHC_REENGAGED", "Power smoothing hardware circuitry re-engaged", kI, "", "",
     "No action needed"},
    {163, "PSHC_DISENGAGED", "Power smoothing hardware circuitry disengaged", kI, "", "",
     "No action needed"},
    {164, "PSHC_LOW_LIFETIME", "Power smoothing hardware circuitry low lifetime reached", kI, "",
     "", "No action needed; plan for the feature running out"},
    {165, "PSHC_ZERO_LIFETIME", "Power smoothing hardware circuitry lifetime exhausted", kW, "", "",
     "Power smoothing is no longer available on this GPU; contact support"},
    {167, "PCIE_FATAL_TIMEOUT", "PCIe fatal timeout", kC, "", "",
     "Drain the node and reboot; if it recurs, reseat/RMA the GPU (check power and PCIe riser)"},
    {171, "UNCORRECTABLE_DRAM_ERROR", "Uncorrectable DRAM error (detail for Xid 48)", kC, "", "",
     "Handle with the paired Xid 48: drain and reset the GPU (nvidia-smi -r -i <index>)"},
    {172, "UNCORRECTABLE_SRAM_ERROR", "Uncorrectable SRAM error (detail for Xid 48)", kC, "", "",
     "Handle with the paired Xid 48: drain and reset the GPU (nvidia-smi -r -i <index>)"},
};

#define SBE_ROW(c) \
  { c, "", "NVSwitch single-bit ECC error (corrected by hardware)", kI, "", "", "No action needed" }
#define SXID_FATAL_TEXT \
  "Drain the node and reboot it (resets all GPUs and NVSwitches); contact support if it recurs"

// Sorted by code. The doc gives no mnemonics or buckets for SXids.
constexpr XidEntry kSxids[] = {
    {10001, "", "NVSwitch host PRIV error", kW, "", "", "Contact support if it recurs"},
    {10002, "", "NVSwitch host PRIV timeout", kW, "", "", "Contact support if it recurs"},
    {10003, "", "NVSwitch unhandled interrupt", kW, "", "", "Contact support if it recurs"},
    {10004, "", "NVSwitch thermal event start", kW, "", "",
     "Check the NVSwitch baseboard cooling and airflow"},
    {10005, "", "NVSwitch thermal event end", kI, "", "", "No action needed"},
    {11001, "", "NVSwitch ingress invalid command (fatal)", kC, "", "", SXID_FATAL_TEXT},
    {11004, "", "NVSwitch ingress invalid ACL (fatal)", kC, "", "", SXID_FATAL_TEXT},
    SBE_ROW(11012),
    SBE_ROW(11021),
    SBE_ROW(11022),
    SBE_ROW(11023),
    {12020, "", "NVSwitch egress sequence ID error (fatal)", kC, "", "", SXID_FATAL_TEXT},
    SBE_ROW(12021),
    SBE_ROW(12023),
    {12028, "",
     "NVSwitch egress non-posted PRIV error: NVLink traffic stalls, CUDA jobs abort "
     "with Xid 45",
     kC, "", "", "Restart the guest VM (or reboot the node on bare metal)"},
    SBE_ROW(15008),
    SBE_ROW(15011),
    SBE_ROW(19049),
    SBE_ROW(19055),
    SBE_ROW(19057),
    SBE_ROW(19059),
    SBE_ROW(19062),
    SBE_ROW(19065),
    SBE_ROW(19068),
    SBE_ROW(19071),
    {19084, "", "NVSwitch AN1 heartbeat timeout (fatal)", kC, "", "", SXID_FATAL_TEXT},
    {20001, "", "NVSwitch link TX replay (non-fatal)", kI, "", "",
     "No action needed; watch for recurrence on the same link"},
    {20009, "", "NVSwitch link RX short error rate (non-fatal)", kI, "", "",
     "No action needed; watch for recurrence on the same link"},
    {20012, "", "NVSwitch broken or inconsistent NVLink connection", kW, "", "",
     "Check the NVLink link mechanicals (cables, connectors, baseboard seating)"},
    {20034, "", "NVSwitch LTSSM fault up (fatal)", kC, "", "", SXID_FATAL_TEXT},
    {22003, "", "NVSwitch Minion halt (fatal)", kC, "", "", SXID_FATAL_TEXT},
    {22011, "", "NVSwitch Minion exterror (fatal)", kC, "", "", SXID_FATAL_TEXT},
    {22013, "", "NVSwitch Minion link DLREQ interrupt (non-fatal)", kI, "", "",
     "No action needed; watch for recurrence on the same link"},
#define BUF_ROW(c) \
  { c, "", "NVSwitch ingress/egress buffer error (fatal)", kC, "", "", SXID_FATAL_TEXT }
    BUF_ROW(23001),
    BUF_ROW(23002),
    BUF_ROW(23003),
    BUF_ROW(23004),
    BUF_ROW(23005),
    BUF_ROW(23006),
    BUF_ROW(23007),
    BUF_ROW(23008),
    BUF_ROW(23009),
    BUF_ROW(23010),
    BUF_ROW(23011),
    BUF_ROW(23012),
    BUF_ROW(23013),
    BUF_ROW(23014),
    BUF_ROW(23015),
    BUF_ROW(23016),
    BUF_ROW(23017),
#undef BUF_ROW
    SBE_ROW(24001),
    SBE_ROW(24002),
    SBE_ROW(24003),
};

#undef SBE_ROW
#undef SXID_FATAL_TEXT
#undef RESET_TEXT
#undef APP_TEXT

/// Facts per code range, sorted and disjoint (see XidFacts).
struct FactsRow {
  int first, last;
  XidFacts facts;
};
constexpr XidClass kApp = XidClass::kApplication;
constexpr XidClass kMem = XidClass::kMemory;
constexpr XidClass kInf = XidClass::kInfo;
const FactsRow kFacts[] = {
    {8, 8, {kApp, XidPayload::kNone, std::nullopt, false}},
    {13, 13, {kApp, XidPayload::kGraphicsException, std::nullopt, false}},
    {31, 31, {kApp, XidPayload::kMmuFault, std::nullopt, false}},
    {43, 43, {kApp, XidPayload::kNone, std::nullopt, true}},
    {45, 45, {kApp, XidPayload::kNone, std::nullopt, true}},
    {48, 48, {kMem, XidPayload::kNone, std::nullopt, false, XidRemap::kNone, true}},
    {63, 63, {kMem, XidPayload::kNone, std::nullopt, false, XidRemap::kPending}},
    {64, 64, {kMem, XidPayload::kNone, std::nullopt, false, XidRemap::kFailed}},
    {68, 69, {kApp, XidPayload::kNone, std::nullopt, false}},
    {74, 74, {XidClass::kFabric, XidPayload::kNvlink, std::nullopt, false}},
    {79, 79, {XidClass::kGpuGone, XidPayload::kNone, std::nullopt, false}},
    {80, 80, {kApp, XidPayload::kNone, std::nullopt, false}},
    {92, 92, {kMem, XidPayload::kNone, std::nullopt, false}},
    {93, 93, {kInf, XidPayload::kNone, std::nullopt, false}},
    {94, 95, {kMem, XidPayload::kNone, std::nullopt, false}},
    {144, 150, {XidClass::kFabric, XidPayload::kNvlink5, std::nullopt, false}},
    {154, 154, {XidClass::kRecovery, XidPayload::kRecoveryAction, std::nullopt, false}},
    {156, 156, {kInf, XidPayload::kNone, std::nullopt, false}},
    {162, 162, {kInf, XidPayload::kNone, 163, false}},
    {163, 164, {kInf, XidPayload::kNone, std::nullopt, false}},
};

template <size_t N>
constexpr bool sorted(const XidEntry (&t)[N]) {
  for (size_t i = 1; i < N; ++i)
    if (t[i - 1].code >= t[i].code) return false;
  return true;
}
static_assert(sorted(kXids), "kXids must be sorted by code");
static_assert(sorted(kSxids), "kSxids must be sorted by code");

template <size_t N>
constexpr const XidEntry* lookup(const XidEntry (&t)[N], int code) {
  auto it = std::lower_bound(std::begin(t), std::end(t), code,
                             [](const XidEntry& e, int c) { return e.code < c; });
  return it != std::end(t) && it->code == code ? &*it : nullptr;
}

// Parses the integer (decimal, or hex after "0x") at the start of s.
std::optional<int> leading_int(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  return v;
}

}  // namespace

const char* xid_class_name(XidClass c) {
  switch (c) {
    case XidClass::kApplication:
      return "application";
    case XidClass::kFabric:
      return "fabric";
    case XidClass::kGpuGone:
      return "gpu-gone";
    case XidClass::kRecovery:
      return "recovery";
    case XidClass::kMemory:
      return "memory";
    case XidClass::kInfo:
      return "info";
    case XidClass::kOther:
      break;
  }
  return "other";
}

XidFacts xid_facts(int code) {
  for (const FactsRow& r : kFacts)
    if (code >= r.first && code <= r.last) return r.facts;
  return {};
}

std::string xid_finding_id(int code) { return "gpu.xid." + std::to_string(code); }

std::optional<int> xid_cancelled_by(int code) {
  for (const FactsRow& r : kFacts)
    if (r.facts.cancels == code) return r.first;
  return std::nullopt;
}

const XidEntry* find_xid(int code) { return lookup(kXids, code); }

const XidEntry* find_sxid(int code) { return lookup(kSxids, code); }

/// "GPU has fallen off the bus" is what Xid 79 reports (the kGpuGone row).
constexpr int kFallenOffBusXid = 79;
static_assert(lookup(kXids, kFallenOffBusXid) != nullptr, "the catalogue has Xid 79");

const XidEntry& fallen_off_bus_entry() { return *find_xid(kFallenOffBusXid); }

std::optional<RecoveryAction> xid154_recovery_action(std::string_view detail) {
  size_t at = detail.find("changed from ");
  if (at == std::string_view::npos) return std::nullopt;
  size_t to = detail.find(" to ", at);
  if (to == std::string_view::npos) return std::nullopt;
  std::optional<int> code = leading_int(detail.substr(to + 4));
  if (!code) return std::nullopt;
  return *code < 0 ? RecoveryAction::kUnknown
                   : recovery_action_of_code(static_cast<uint64_t>(*code));
}

Severity recovery_action_severity(RecoveryAction action) {
  switch (action) {
    case RecoveryAction::kNone:
      return Severity::kInfo;
    case RecoveryAction::kGpuReset:
    case RecoveryAction::kNodeReboot:
    case RecoveryAction::kDrainAndReset:
      return Severity::kCritical;
    default:
      return Severity::kWarning;
  }
}

std::optional<int> caused_by_xid(std::string_view detail) {
  constexpr std::string_view kMarker = "caused by previous Xid ";
  size_t at = detail.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  return leading_int(detail.substr(at + kMarker.size()));
}

}  // namespace gt
