#include "watch/changes.h"

#include <unordered_set>

namespace gt {
namespace {

Change from_finding(const Finding& f, ChangeKind kind, int64_t t) {
  Change c;
  c.time_unix_ms = t;
  c.kind = kind;
  c.severity = f.severity;
  c.id = f.id;
  c.gpu_index = f.subject.gpu_index;
  c.pci_bus_id = f.subject.pci_bus_id;
  c.server = f.subject.server_id;
  c.path = f.subject.path;
  c.text = f.title;
  return c;
}

std::unordered_set<std::string> keys_of(const std::vector<Finding>& fs) {
  std::unordered_set<std::string> keys;
  for (const Finding& f : fs) keys.insert(finding_key(f));
  return keys;
}

}  // namespace

const char* change_kind_name(ChangeKind k) {
  switch (k) {
    case ChangeKind::kStarted:
      return "started";
    case ChangeKind::kFindingRaised:
      return "raised";
    case ChangeKind::kFindingCleared:
      return "cleared";
    case ChangeKind::kEvent:
      return "event";
    case ChangeKind::kServerIdle:
      return "server-idle";
    case ChangeKind::kServerBusy:
      return "server-busy";
    case ChangeKind::kServerGone:
      return "server-gone";
    case ChangeKind::kServerNew:
      return "server-new";
    case ChangeKind::kBadFile:
      return "bad-file";
    case ChangeKind::kStall:
      return "stall";
    case ChangeKind::kResumed:
      return "resumed";
    case ChangeKind::kDataGone:
      return "data-gone";
    case ChangeKind::kDataBack:
      return "data-back";
    case ChangeKind::kDataCreated:
      return "data-created";
    case ChangeKind::kNote:
      return "note";
  }
  return "note";
}

std::string finding_key(const Finding& f) {
  const Subject& s = f.subject;
  std::string k = f.id + "|" + s.kind;
  if (s.gpu_index) k += "|gpu" + std::to_string(*s.gpu_index);
  if (s.pci_bus_id) k += "|" + *s.pci_bus_id;
  if (s.server_id) k += "|" + *s.server_id;
  if (s.pid) k += "|pid" + std::to_string(*s.pid);
  if (s.path) k += "|" + *s.path;
  return k;
}

std::vector<Change> diff_findings(const std::vector<Finding>& before,
                                  const std::vector<Finding>& now, int64_t t) {
  const std::unordered_set<std::string> old_keys = keys_of(before), new_keys = keys_of(now);
  std::vector<Change> out;
  std::unordered_set<std::string> said;  // one change per key, duplicates in a list fold
  for (const Finding& f : now)
    if (!old_keys.count(finding_key(f)) && said.insert("+" + finding_key(f)).second)
      out.push_back(from_finding(f, ChangeKind::kFindingRaised, t));
  for (const Finding& f : before)
    if (!new_keys.count(finding_key(f)) && said.insert("-" + finding_key(f)).second)
      out.push_back(from_finding(f, ChangeKind::kFindingCleared, t));
  return out;
}

}  // namespace gt
