// Findings and the verdict: what the checks conclude from a snapshot.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

enum class Severity { kOk = 0, kInfo = 1, kWarning = 2, kCritical = 3 };

/// "ok", "info", "warning", "critical".
const char* severity_name(Severity s);

/// Who a finding is about.
struct Subject {
  std::string kind;  ///< "node", "gpu", "server", "process", "path", "kernel-log"
  std::optional<std::string> server_id;  ///< Server::id in the snapshot's servers
  std::optional<uint32_t> gpu_index;
  std::optional<std::string> gpu_uuid;
  std::optional<std::string> pci_bus_id;
  std::optional<uint32_t> pid;
  std::optional<std::string> path;
  bool operator==(const Subject&) const = default;
};

struct Finding {
  std::string id;  ///< stable, public: "nvml.version_mismatch", "gpu.xid"...
  Severity severity = Severity::kInfo;
  Subject subject;
  std::string title;                  ///< one line, what is wrong (or right)
  std::string evidence;               ///< the numbers behind it
  std::string action;                 ///< what to do, in words
  std::vector<std::string> commands;  ///< commands that do it, in order
  /// Ids of findings about the same GPU folded into this one (a lost GPU's
  /// Xid 79), their evidence appended to this one's.
  std::vector<std::string> joined_ids;
  /// The Xids (kernel-log kind "xid") this finding reports, its own and those
  /// of the findings joined into it, for layers that act on the code
  /// (history); never parsed back out of an id.
  std::vector<int> xid_codes;
  /// The fleet finding that explains this one ("fleet.xid_correlated.31":
  /// the same Xid on several hosts at once); null outside a fleet.
  std::optional<std::string> explained_by;
  /// Set on a note said once per boot (a change made on purpose: a driver
  /// upgrade): the key under which an operator's triage records it as said
  /// (HistoryBoot::said_changes); null for findings said while they hold.
  std::optional<std::string> said_once_key;
  bool operator==(const Finding&) const = default;
};

/// A finding as a bundle's replay compares it with the recorded report's:
/// "id severity" and its subject.
std::string replay_finding_key(const Finding& f);

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<Subject> auto& s, auto& v) {
  v("kind", s.kind);
  v("server_id", s.server_id);
  v("gpu_index", s.gpu_index);
  v("gpu_uuid", s.gpu_uuid);
  v("pci_bus_id", s.pci_bus_id);
  v("pid", s.pid);
  v("path", s.path);
}

/// said_once_key is the run's own bookkeeping, not part of the report.
void describe(SelfOf<Finding> auto& f, auto& v) {
  v("id", f.id);
  v("severity", f.severity);
  v("subject", f.subject);
  v("title", f.title);
  v("evidence", f.evidence);
  v("action", f.action);
  v("commands", f.commands);
  v("joined_ids", f.joined_ids);
  v("xid_codes", f.xid_codes);
  v("explained_by", f.explained_by, OmitWhenNull{});
}

}  // namespace gt
