// Xid, SXid and "fallen off the bus" messages from the kernel log, decoded
// with the catalogue (xid_catalog.cc) and grouped per GPU, code and boot
// with a count and the first and last time. The crash usually happened in
// the previous boot; a reboot has cleared what a reboot fixes, so a
// previous-boot event is one level milder (critical -> warning, otherwise
// info) but still shown: the same hardware error coming back is how a bad
// GPU announces itself. A log we could not read is a finding of its own.
// The parser folds storms (one event per GPU, code and boot with a count and
// the last line's time), so a group's count is the sum of its events' counts.
// An Xid 163 that a later Xid 162 cancelled stands down to info; Xid 13/31 on
// several GPUs at once is one application fault (app_fault.cc) and the
// per-GPU findings become info.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "checks/action_commands.h"
#include "checks/app_fault.h"
#include "checks/checks.h"
#include "checks/kernel_log_groups.h"
#include "model/xid_catalog.h"

namespace gt {
namespace {

using Group = EventGroup;
using Key = EventKey;

Severity milder(Severity s) {
  return s == Severity::kCritical ? Severity::kWarning : Severity::kInfo;
}

bool says_fatal(const std::string& text) {
  // "Fatal" but not "Non-fatal"/"Nonfatal" (NVLink5 Xids 144-150, SXids).
  for (size_t at = text.find("atal"); at != std::string::npos; at = text.find("atal", at + 1)) {
    if (at == 0 || (text[at - 1] != 'F' && text[at - 1] != 'f')) continue;
    size_t f = at - 1;
    bool non =
        (f >= 4 && text.compare(f - 4, 4, "Non-") == 0) ||
        (f >= 4 && text.compare(f - 4, 4, "non-") == 0) ||
        (f >= 3 && (text.compare(f - 3, 3, "Non") == 0 || text.compare(f - 3, 3, "non") == 0));
    if (!non) return true;
  }
  return false;
}

/// Severity of one group: the catalogue's, raised by what the lines say
/// (a Fatal NVLink/SXid error, the recovery action an Xid 154 announces).
Severity graded(EventKind kind, int code, const XidEntry* entry,
                const std::vector<const KernelLogEvent*>& events) {
  Severity sev = entry ? entry->severity : Severity::kWarning;
  for (const KernelLogEvent* e : events) {
    const std::string& text = e->detail.empty() ? e->line : e->detail;
    const XidFacts facts = kind == EventKind::kXid ? xid_facts(code) : XidFacts{};
    if ((kind == EventKind::kSxid || facts.payload == XidPayload::kNvlink5) && says_fatal(text))
      sev = std::max(sev, Severity::kCritical);
    if (facts.cls == XidClass::kRecovery)
      if (std::optional<RecoveryAction> action = xid154_recovery_action(text))
        sev = std::max(sev, recovery_action_severity(*action));
  }
  return sev;
}

/// "; 3 more distinct messages: a | b | c (and 2 others)" for a folded storm.
std::string other_details(const Group& grp) {
  std::vector<std::string> more;
  uint64_t dropped = 0;
  for (const KernelLogEvent* e : grp.all) {
    dropped += e->distinct_details_dropped;
    for (const std::string& d : e->distinct_details)
      if (d != grp.first->detail && std::find(more.begin(), more.end(), d) == more.end())
        more.push_back(d);
  }
  if (more.empty() && dropped == 0) return "";
  std::string out = fmt::format("; other messages: {}", fmt::join(more, " | "));
  if (dropped) out += fmt::format(" (and {} more distinct)", with_commas(dropped));
  return out;
}

/// What stands a group down to info: an Xid 163 that Xid 162 cancelled (every
/// line of it), or an Xid 13/31 that is part of one application's fault on
/// several GPUs.
void stand_down(const Group& grp, Finding& f) {
  bool cancelled = std::all_of(grp.all.begin(), grp.all.end(),
                               [](const KernelLogEvent* e) { return e->cancelled_by_code; });
  if (cancelled) {
    f.severity = Severity::kInfo;
    f.title += fmt::format(", cancelled by Xid {}", *grp.first->cancelled_by_code);
    f.action = fmt::format(
        "Xid {} followed and cancels it (power smoothing re-engaged): nothing "
        "to do.",
        *grp.first->cancelled_by_code);
  }
  if (grp.part_of_app_fault) {
    f.severity = Severity::kInfo;
    f.title += " (part of kernel_log.app_fault_many_gpus: likely the application, not the GPU)";
  }
}

/// "; MIG GPU instance 5" (or "instances 1, 2") when the driver named them.
std::string mig_instances(const Group& grp) {
  std::set<uint32_t> ids;
  for (const KernelLogEvent* e : grp.all)
    if (e->gpu_instance_id) ids.insert(*e->gpu_instance_id);
  if (ids.empty()) return "";
  std::string list;
  for (uint32_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  return (ids.size() == 1 ? "; MIG GPU instance " : "; MIG GPU instances ") + list;
}

/// Xid 48's workflow asks whether an Xid 63 or 64 followed on the same GPU
/// (NVIDIA's Debug Guidelines): the log answers, so the action says which.
void resolve_xid48(const NodeSnapshot& s, const Key& key, const KernelLogEvent& first, Finding& f) {
  const auto& [kind, code, bus, boot] = key;
  std::optional<XidRemap> followed;
  for (const KernelLogEvent& e : s.kernel_log->events) {
    const XidRemap remap = e.code ? xid_facts(*e.code).remap : XidRemap::kNone;
    if (e.kind == EventKind::kXid && remap != XidRemap::kNone && e.boot == boot && e.pci_bus_id &&
        normalize_pci_bus_id(*e.pci_bus_id) == normalize_pci_bus_id(bus) &&
        (!e.time_unix_s || !first.time_unix_s || *e.time_unix_s >= *first.time_unix_s))
      followed = std::max(followed.value_or(XidRemap::kNone), remap);
  }
  const std::string ask = "; if no Xid 63/64 followed, run the field diagnostic";
  const size_t at = f.action.find(ask);
  if (at == std::string::npos) return;
  const std::string answer =
      !followed ? "; no Xid 63/64 followed: run the field diagnostic (dcgmi diag -r 3)"
      : *followed == XidRemap::kFailed
          ? "; Xid 64 followed: the row remap failed, an RMA case"
          : "; Xid 63 followed: the reset also activates the pending row remap";
  f.action.replace(at, ask.size(), answer);
}

/// A reset the driver confirms: in this boot it announced (Xid 154) that
/// the GPU needs a reset (or a drain and reset) at or after the group's
/// first line, and its recovery action (NVML field 230) now reads none. The
/// line stays in the log until the reboot; the state it reported has ended.
/// Without both (an older driver, an Xid it announced nothing for), it is
/// unknown whether a reset happened, and the finding stands.
bool reset_confirmed(const NodeSnapshot& s, const GpuState* g, const Key& key,
                     const KernelLogEvent& first) {
  const auto& [kind, code, bus, boot] = key;
  if (!g || boot != LogBoot::kCurrent || kind != EventKind::kXid) return false;
  if (g->recovery.action != RecoveryAction::kNone || g->recovery.flags_from_deprecated_fields)
    return false;
  for (const KernelLogEvent& e : s.kernel_log->events) {
    if (e.kind != EventKind::kXid || !e.code || xid_facts(*e.code).cls != XidClass::kRecovery ||
        e.boot != LogBoot::kCurrent || !e.pci_bus_id ||
        normalize_pci_bus_id(*e.pci_bus_id) != normalize_pci_bus_id(bus))
      continue;
    if (first.time_unix_s &&
        e.last_time_unix_s.value_or(e.time_unix_s.value_or(0)) < *first.time_unix_s)
      continue;
    std::optional<RecoveryAction> announced =
        xid154_recovery_action(e.detail.empty() ? e.line : e.detail);
    if (announced == RecoveryAction::kGpuReset || announced == RecoveryAction::kDrainAndReset)
      return true;
  }
  return false;
}

Finding event_finding(const NodeSnapshot& s, const Key& key, const Group& grp) {
  const auto& [kind, code, bus, boot] = key;
  const KernelLogEvent& e = *grp.first;
  const XidEntry* entry = kind == EventKind::kXid    ? find_xid(code)
                          : kind == EventKind::kSxid ? find_sxid(code)
                                                     : &fallen_off_bus_entry();
  std::string id = kind == EventKind::kXid    ? xid_finding_id(code)
                   : kind == EventKind::kSxid ? "gpu.sxid." + std::to_string(code)
                                              : "gpu.fallen_off_bus_logged";
  Finding f = node_finding(id.c_str());
  f.subject.kind = "gpu";
  const GpuState* g = bus.empty() ? nullptr : gpu_by_bus_id(s, bus);
  if (g) f = gpu_finding(id.c_str(), *g);
  if (!bus.empty()) f.subject.pci_bus_id = normalize_pci_bus_id(bus);
  if (kind == EventKind::kXid) f.xid_codes = {code};
  f.severity = graded(kind, code, entry, grp.all);
  if (boot == LogBoot::kPrevious) f.severity = milder(f.severity);
  std::string where =
      g ? gpu_label(*g) : (bus.empty() ? "a GPU" : "GPU at " + normalize_pci_bus_id(bus));
  std::string what = kind == EventKind::kFallenOffBus
                         ? "fell off the bus"
                         : fmt::format("{} {} ({})", kind == EventKind::kXid ? "Xid" : "SXid", code,
                                       entry ? entry->mnemonic : "not in the catalogue");
  f.title = fmt::format("{}: {} x{} in the {} boot", where, what, with_commas(grp.count),
                        boot == LogBoot::kFile ? "logged" : log_boot_name(boot));
  f.evidence =
      fmt::format("first {}, last {}; {}{}{}", first_when(e), last_when(*grp.last),
                  e.detail.empty() ? e.line : e.detail, other_details(grp), mig_instances(grp));
  if (entry) {
    f.action = std::string(entry->description) + ". " + entry->action_text;
  } else {
    f.action = fmt::format(
        "Xid {} is not in the catalogue: look it up in NVIDIA's Xid catalog "
        "and watch whether it recurs.",
        code);
  }
  if (kind == EventKind::kXid && xid_facts(code).asks_remap_followed)
    resolve_xid48(s, key, *grp.first, f);
  const std::string target =
      g ? std::to_string(g->index) : (bus.empty() ? "" : normalize_pci_bus_id(bus));
  // A reboot has happened since a previous-boot event: nothing to reset.
  if (boot != LogBoot::kPrevious) f.commands = action_commands(f.action, target);
  f.action = fill_target(f.action, target);
  if (boot == LogBoot::kPrevious)
    f.action += " It happened before the last reboot; watch whether it comes back.";
  stand_down(grp, f);
  if (reset_confirmed(s, g, key, e)) {
    f.severity = Severity::kInfo;
    f.title += ", cleared by a GPU reset";
    f.evidence += "; the driver announced a reset (Xid 154) and its recovery action now reads none";
    f.action = "The GPU was reset after it, as the driver asked: nothing more unless it recurs.";
  }
  if (f.severity <= Severity::kInfo) f.commands.clear();
  return f;
}

/// Why a source could not be read, from the words the reader kept.
enum class Cause {
  kPermission,
  kNoPersistentJournal,
  kNoPreviousBoot,
  kNoJournalctl,
  kTimedOut,
  kMissing,
  kNotALog,  ///< a file given with --kernel-log holds no kernel-log line
  kOther
};

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

Cause cause_of(const KernelLog::Source& src) {
  const std::string& e = *src.error;
  if (has(e, "timed out")) return Cause::kTimedOut;
  if (has(e, "No journal files were found") || has(e, "no persistent journal"))
    return Cause::kNoPersistentJournal;
  if (has(e, "cannot run journalctl"))
    return has(e, "No such file") ? Cause::kNoJournalctl : Cause::kOther;
  if (has(e, "No such boot ID") || has(e, "is not available")) return Cause::kNoPreviousBoot;
  if (has(e, "ermission denied") || has(e, "insufficient permissions") ||
      has(e, "Operation not permitted"))
    return Cause::kPermission;
  if (e == "not found" || has(e, "No such file")) return Cause::kMissing;
  if (e.starts_with("not a kernel log") || e.starts_with("empty: no line")) return Cause::kNotALog;
  return Cause::kOther;
}

std::string cause_words(Cause c, const KernelLog::Source& src, bool root) {
  switch (c) {
    case Cause::kPermission:
      return root ? "permission denied although running as root (a container without "
                    "CAP_SYSLOG?)"
                  : "permission denied (not root)";
    case Cause::kNoPersistentJournal:
      return "no persistent journal: the previous boot's messages were not kept";
    case Cause::kNoPreviousBoot:
      return "the journal holds no earlier boot (the first boot it kept, or it is not "
             "persistent)";
    case Cause::kNoJournalctl:
      return "journalctl is not installed";
    case Cause::kTimedOut:
      return *src.error + " (a large or slow journal)";
    case Cause::kMissing:
      return src.name == "/dev/kmsg" ? "/dev/kmsg does not exist here (a container?)"
                                     : "no such file";
    case Cause::kNotALog:
    case Cause::kOther:
      break;
  }
  return *src.error;
}

/// What to do about one cause; commands go in `cmds`.
std::string cause_action(Cause c, bool root, std::vector<std::string>& cmds) {
  switch (c) {
    case Cause::kPermission:
      if (root) return "Give the container CAP_SYSLOG or run gpu-triage on the host.";
      cmds.push_back("sudo gpu-triage");
      return "Run as root (or with CAP_SYSLOG) to read /dev/kmsg.";
    case Cause::kNoPersistentJournal:
      cmds.push_back("sudo mkdir -p /var/log/journal && sudo systemctl restart systemd-journald");
      return "The previous boot's messages are gone; keep the next ones with a persistent "
             "journal (/var/log/journal, Storage=persistent in journald.conf).";
    case Cause::kNoJournalctl:
      return "Pass the previous boot's log with --kernel-log FILE (a saved dmesg, "
             "/var/log/kern.log.1).";
    case Cause::kTimedOut:
      cmds.push_back("sudo journalctl -k -b -1 | grep -E 'NVRM|Xid'");
      return "Read the previous boot's kernel log by hand.";
    case Cause::kNoPreviousBoot:
      cmds.push_back(
          "ls -d /var/log/journal || (sudo mkdir -p /var/log/journal && sudo "
          "systemctl restart systemd-journald)");
      return "If /var/log/journal does not exist the previous boot's messages were not kept: "
             "create it so the next ones are.";
    case Cause::kNotALog:
      // The operator already passed --kernel-log: say what to pass instead.
      cmds.push_back("sudo journalctl -k -b --no-pager > kernel.log");
      return "Pass the node's own kernel log instead: a saved dmesg or journalctl -k output, or "
             "/var/log/kern.log.";
    case Cause::kMissing:
    case Cause::kOther:
      break;
  }
  return "Run gpu-triage on the host, or pass a saved log with --kernel-log FILE.";
}

void unreadable(const KernelLog& log, bool root, std::vector<Finding>& out) {
  bool current_read = false, previous_read = false;
  std::string errors, action, not_a_log, file_words;
  bool only_not_a_log = true;
  std::vector<std::string> cmds;
  for (const KernelLog::Source& src : log.sources) {
    if (src.read && (src.boot == LogBoot::kCurrent || src.boot == LogBoot::kFile))
      current_read = true;
    if (src.read && src.boot == LogBoot::kPrevious) previous_read = true;
  }
  for (const KernelLog::Source& src : log.sources) {
    if (!src.error) continue;
    const Cause c = cause_of(src);
    // A boot read from another source is covered.
    if (src.boot == LogBoot::kPrevious && previous_read) continue;
    if (c == Cause::kNotALog)
      not_a_log = src.name;
    else
      only_not_a_log = false;
    errors += (errors.empty() ? "" : "; ") + src.name + ": " + cause_words(c, src, root);
    // The file the operator passed (a mistyped path): name it, and no
    // advice to pass one.
    const bool passed_file = src.boot == LogBoot::kFile && c != Cause::kNotALog;
    if (passed_file) file_words = "--kernel-log " + src.name + ": " + cause_words(c, src, root);
    std::string a = passed_file ? "Check the path given to --kernel-log: a saved dmesg, journalctl "
                                  "-k output or /var/log/kern.log."
                                : cause_action(c, root, cmds);
    if (!a.empty() && action.find(a) == std::string::npos)
      action += (action.empty() ? "" : " ") + a;
  }
  if (errors.empty()) return;
  Finding f = node_finding("kernel_log.unreadable");
  f.subject.kind = "kernel-log";
  f.severity = current_read ? Severity::kInfo : Severity::kWarning;
  f.title = current_read          ? "The previous boot's kernel log could not be read"
            : only_not_a_log      ? not_a_log + " is not a kernel log: Xid errors are unknown"
            : !file_words.empty() ? file_words + ": Xid errors are unknown"
                                  : "Could not read the kernel log: Xid errors are unknown";
  f.evidence = errors;
  f.action = action;
  for (const std::string& c : cmds)
    if (std::find(f.commands.begin(), f.commands.end(), c) == f.commands.end())
      f.commands.push_back(c);
  out.push_back(f);
}

}  // namespace

void check_kernel_log(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out) {
  if (!s.kernel_log) return;
  // On a machine with no NVIDIA GPU there is nothing to look for.
  if (!no_nvidia_gpu(s)) unreadable(*s.kernel_log, o.running_as_root, out);
  std::map<Key, Group> groups = group_events(*s.kernel_log);
  std::vector<Finding> app = app_fault_many_gpus(s, groups);
  for (const auto& [key, grp] : groups) out.push_back(event_finding(s, key, grp));
  out.insert(out.end(), app.begin(), app.end());
}

}  // namespace gt
