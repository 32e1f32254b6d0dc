// An Xid from the previous boot (journalctl -k -b -1, kern.log before
// btime) is that boot's, not this one's: it is recorded under the previous
// boot's id (the journal's boot list), so the same line read again in a
// later run, or already recorded by a run in that boot, counts once. Without
// that id it is not recorded. A file given with --kernel-log has no boot:
// nothing from it is recorded.
#include "history/record.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "checks/catalogue.h"
#include "model/xid_catalog.h"

namespace gt {
namespace {

bool logged_in(const NodeSnapshot& s, int code, const std::optional<std::string>& bus,
               LogBoot boot) {
  if (!s.kernel_log || !bus) return false;
  return std::any_of(s.kernel_log->events.begin(), s.kernel_log->events.end(),
                     [&](const KernelLogEvent& e) {
                       return e.kind == EventKind::kXid && e.code == code && e.boot == boot &&
                              e.pci_bus_id && normalize_pci_bus_id(*e.pci_bus_id) == *bus;
                     });
}

std::optional<std::string> uuid_of(const NodeSnapshot& s, const Finding& f) {
  if (f.subject.gpu_uuid) return f.subject.gpu_uuid;
  if (f.subject.gpu_index)
    if (const GpuState* g = gpu_by_index(s, *f.subject.gpu_index); g && g->uuid) return g->uuid;
  if (!f.subject.pci_bus_id) return std::nullopt;
  const std::string bus = normalize_pci_bus_id(*f.subject.pci_bus_id);
  for (const GpuState& g : s.gpus)
    if (g.uuid && g.pci_bus_id && normalize_pci_bus_id(*g.pci_bus_id) == bus) return g.uuid;
  for (const PciDevice& d : s.pci_devices)
    if (d.uuid && normalize_pci_bus_id(d.bus_id) == bus) return d.uuid;
  return std::nullopt;
}

std::optional<std::string> bus_of(const NodeSnapshot& s, const Finding& f) {
  if (f.subject.pci_bus_id) return normalize_pci_bus_id(*f.subject.pci_bus_id);
  if (const GpuState* g = f.subject.gpu_index ? gpu_by_index(s, *f.subject.gpu_index) : nullptr;
      g && g->pci_bus_id)
    return normalize_pci_bus_id(*g->pci_bus_id);
  return std::nullopt;
}

/// What of `f` is worth keeping across boots: the recovery action (this
/// boot's), and each Xid it reports (its own and those joined into it:
/// Finding::xid_codes) that this or the previous boot's log shows, except
/// the application's (the catalogue's class: a buggy job that recurs across
/// boots is not a GPU for RMA).
std::vector<Observed> worth_recording(const NodeSnapshot& s, const Finding& f,
                                      const std::string& uuid) {
  std::vector<Observed> out;
  // Kept by its own id (the recovery action: its catalogue row), itself or
  // joined into another finding.
  std::vector<std::string> ids = {f.id};
  ids.insert(ids.end(), f.joined_ids.begin(), f.joined_ids.end());
  for (const std::string& id : ids)
    if (kept_by_id(id)) out.push_back({uuid, id, LogBoot::kCurrent});
  const std::optional<std::string> bus = bus_of(s, f);
  for (int code : f.xid_codes) {
    if (is_application_xid(code)) continue;
    for (LogBoot boot : {LogBoot::kPrevious, LogBoot::kCurrent})
      if (logged_in(s, code, bus, boot)) out.push_back({uuid, xid_finding_id(code), boot});
  }
  return out;
}

FindingBoots& entry(GpuHistory& h, const std::string& uuid, const std::string& id) {
  auto g = std::find_if(h.gpus.begin(), h.gpus.end(),
                        [&](const GpuRecord& r) { return r.uuid == uuid; });
  if (g == h.gpus.end()) g = h.gpus.insert(h.gpus.end(), GpuRecord{uuid, {}});
  auto f = std::find_if(g->findings.begin(), g->findings.end(),
                        [&](const FindingBoots& x) { return x.finding_id == id; });
  if (f == g->findings.end()) f = g->findings.insert(g->findings.end(), FindingBoots{id, {}});
  return *f;
}

/// Drops the oldest boots beyond the bound, and their ids everywhere, in one
/// pass: a record of 170,000 boots (under the size cap) is trimmed in
/// linear time, not one boot at a time over every GPU's lists.
/// A fingerprint is tens of KiB with a large python environment, and the
/// record is read by every run: the first of a boot is kept only for this
/// boot (its baseline before a previous one exists), the last only for the
/// newest kFingerprintBoots boots (a previous boot's is the baseline).
void bound_fingerprints(GpuHistory& h) {
  size_t newer = 0;
  for (auto b = h.boots.rbegin(); b != h.boots.rend(); ++b, ++newer) {
    if (b->boot_id != h.boot_id) b->first_fingerprint.reset();
    if (newer >= kFingerprintBoots) b->last_fingerprint.reset();
  }
}

void bound(GpuHistory& h) {
  if (h.boots.size() <= kMaxHistoryBoots) return;
  const auto first_kept = h.boots.end() - static_cast<std::ptrdiff_t>(kMaxHistoryBoots);
  std::unordered_set<std::string> gone;
  for (auto b = h.boots.begin(); b != first_kept; ++b) gone.insert(b->boot_id);
  // A boot id listed twice (a hand-edited record) stays if one copy is kept.
  for (auto b = first_kept; b != h.boots.end(); ++b) gone.erase(b->boot_id);
  h.boots.erase(h.boots.begin(), first_kept);
  for (GpuRecord& g : h.gpus) {
    for (FindingBoots& f : g.findings)
      std::erase_if(f.boot_ids, [&](const std::string& id) { return gone.contains(id); });
    std::erase_if(g.findings, [](const FindingBoots& f) { return f.boot_ids.empty(); });
  }
  std::erase_if(h.gpus, [](const GpuRecord& g) { return g.findings.empty(); });
}

}  // namespace

std::vector<Observed> observed_findings(const NodeSnapshot& s, const std::vector<Finding>& fs) {
  std::vector<Observed> out;
  for (const Finding& f : fs) {
    if (f.severity <= Severity::kInfo) continue;
    std::optional<std::string> uuid = uuid_of(s, f);
    if (!uuid) continue;
    for (const Observed& o : worth_recording(s, f, *uuid))
      if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  }
  return out;
}

std::vector<std::string> boots_with(const GpuHistory& h, const std::string& uuid,
                                    const std::string& finding_id,
                                    const std::vector<Observed>& now) {
  std::vector<std::string> boots;
  for (const GpuRecord& g : h.gpus)
    if (g.uuid == uuid)
      for (const FindingBoots& f : g.findings)
        if (f.finding_id == finding_id) boots = f.boot_ids;
  auto seen = [&](LogBoot boot) {
    return std::find(now.begin(), now.end(), Observed{uuid, finding_id, boot}) != now.end();
  };
  auto add = [&](const std::optional<std::string>& id) {
    if (id && std::find(boots.begin(), boots.end(), *id) == boots.end()) boots.push_back(*id);
  };
  if (seen(LogBoot::kPrevious)) add(h.previous_boot_id);
  if (seen(LogBoot::kCurrent)) add(h.boot_id);
  return boots;
}

std::optional<std::string> dashed_boot_id(const std::string& id) {
  std::string hex;
  for (char c : id)
    if (c != '-') hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (hex.size() != 32 || !std::all_of(hex.begin(), hex.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c));
      }))
    return std::nullopt;
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

namespace {

/// Records `o` under `boot_id` (once).
void note(GpuHistory& h, const Observed& o, const std::string& boot_id) {
  FindingBoots& f = entry(h, o.uuid, o.finding_id);
  if (std::find(f.boot_ids.begin(), f.boot_ids.end(), boot_id) == f.boot_ids.end())
    f.boot_ids.push_back(boot_id);
}

/// The previous boot's entry, before this boot's (boots are oldest first);
/// dated by its first journal entry when known.
void add_previous_boot(GpuHistory& h, int64_t now_unix_s) {
  const std::string& id = *h.previous_boot_id;
  if (find_boot(h, id)) return;
  const int64_t when = h.previous_boot_first_unix_s.value_or(now_unix_s);
  auto current = std::find_if(h.boots.begin(), h.boots.end(),
                              [&](const HistoryBoot& x) { return h.boot_id == x.boot_id; });
  h.boots.insert(current, {id, when, when});
}

}  // namespace

void add_run(GpuHistory& h, int64_t now_unix_s, const std::vector<Observed>& observed,
             const std::optional<Fingerprint>& fingerprint) {
  if (!h.boot_id) return;
  const std::string& id = *h.boot_id;
  auto b = std::find_if(h.boots.begin(), h.boots.end(),
                        [&](const HistoryBoot& x) { return x.boot_id == id; });
  if (b == h.boots.end()) {
    h.boots.push_back({id, now_unix_s, now_unix_s, std::nullopt, std::nullopt, {}});
    b = h.boots.end() - 1;
  } else {
    b->last_seen_unix_s = now_unix_s;
  }
  if (fingerprint) {
    if (!b->first_fingerprint) b->first_fingerprint = fingerprint;
    b->last_fingerprint = fingerprint;
  }
  for (const Observed& o : observed) {
    if (o.boot == LogBoot::kCurrent) {
      note(h, o, id);
    } else if (h.previous_boot_id && *h.previous_boot_id != id) {
      add_previous_boot(h, now_unix_s);
      note(h, o, *h.previous_boot_id);
    }
  }
  bound(h);
  bound_fingerprints(h);
}

size_t clear_history(GpuHistory& h, const std::string& uuid) {
  const size_t before = h.gpus.size();
  if (uuid.empty()) {
    h.gpus.clear();
    h.boots.clear();
  } else {
    std::erase_if(h.gpus, [&](const GpuRecord& g) { return g.uuid == uuid; });
  }
  return before - h.gpus.size();
}

void mark_said(GpuHistory& h, const std::vector<std::string>& keys) {
  if (!h.boot_id) return;
  for (HistoryBoot& b : h.boots) {
    if (b.boot_id != *h.boot_id) continue;
    for (const std::string& k : keys)
      if (std::find(b.said_changes.begin(), b.said_changes.end(), k) == b.said_changes.end())
        b.said_changes.push_back(k);
    if (b.said_changes.size() > kMaxSaidChanges)
      b.said_changes.erase(b.said_changes.begin(),
                           b.said_changes.end() - static_cast<std::ptrdiff_t>(kMaxSaidChanges));
  }
}

const HistoryBoot* find_boot(const GpuHistory& h, const std::string& boot_id) {
  for (const HistoryBoot& b : h.boots)
    if (b.boot_id == boot_id) return &b;
  return nullptr;
}

void record_aer(GpuHistory& h, const NodeSnapshot& s, int64_t now_unix_s) {
  if (!h.boot_id) return;
  std::vector<AerRecord> now;
  auto add = [&](const std::string& bus, const AerCounters& c) {
    const AerTotals t = aer_totals(c);
    if ((t.correctable || t.nonfatal || t.fatal) && now.size() < kMaxHistoryAer)
      now.push_back({bus, *h.boot_id, now_unix_s, t});
  };
  for (const PciDevice& d : s.pci_devices) add(d.bus_id, d.aer);
  for (const PcieBridge& b : s.pcie_bridges) add(b.bus_id, b.aer);
  if (!now.empty()) h.aer = std::move(now);
}

}  // namespace gt
