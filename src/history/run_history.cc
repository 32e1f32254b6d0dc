#include "history/run_history.h"

#include <algorithm>
#include <chrono>

#include "history/record.h"
#include "history/state_file.h"

namespace gt {

void load_history(const std::optional<std::string>& state_dir, bool no_state, const FsRoot& root,
                  NodeSnapshot& snap) {
  if (no_state || (root.root() != "/" && !state_dir)) return;
  const std::string dir = state_dir.value_or(default_state_dir());
  Result<GpuHistory> h = open_history(dir, root, snap.warnings);
  if (!h) {
    snap.warnings.push_back("history across boots not kept: " + h.error().message +
                            " (repeated Xids are not escalated; --state-dir DIR, or --no-state)");
    return;
  }
  snap.history = std::move(*h);
  // The previous boot's Xids are recorded under its id, which only the
  // journal's boot list gives (journald's id is /proc's, undashed).
  const std::optional<PreviousBoot>& prev =
      snap.incident ? snap.incident->previous_boot : std::nullopt;
  if (prev && prev->boot_id) {
    snap.history->previous_boot_id = dashed_boot_id(*prev->boot_id);
    snap.history->previous_boot_first_unix_s = prev->first_entry_unix_s;
  }
}

void record_run(Report& report, bool said_to_operator) {
  NodeSnapshot& s = report.snapshot;
  if (!s.history) return;
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::vector<Observed> observed = observed_findings(s, report.findings);
  // The snapshot keeps what was judged; the record is read again under the
  // lock, so what another run wrote meanwhile is kept.
  const std::string& file = s.history->file;
  const std::string dir = file.substr(0, file.find_last_of('/'));
  const std::optional<std::string> boot = s.history->boot_id;
  const std::optional<std::string> previous = s.history->previous_boot_id;
  const std::optional<int64_t> previous_first = s.history->previous_boot_first_unix_s;
  if (!previous && std::any_of(observed.begin(), observed.end(),
                               [](const Observed& o) { return o.boot == LogBoot::kPrevious; }))
    s.warnings.push_back(
        "history across boots: the previous boot's Xids are not recorded: the journal names no "
        "previous boot (volatile or first boot), so its id is unknown");
  const std::optional<Fingerprint>& fingerprint = s.fingerprint;
  std::vector<std::string> said;  // the notes said once, shown by this run
  for (const Finding& f : report.findings)
    if (f.said_once_key) said.push_back(*f.said_once_key);
  const NodeSnapshot& snap = s;
  std::vector<std::string> warnings;
  Status w = update_history(
      dir,
      [&](GpuHistory& h) {
        h.boot_id = boot;
        h.previous_boot_id = previous;
        h.previous_boot_first_unix_s = previous_first;
        add_run(h, now, observed, fingerprint);
        record_aer(h, snap, now);
        if (said_to_operator) mark_said(h, said);
      },
      warnings);
  s.warnings.insert(s.warnings.end(), warnings.begin(), warnings.end());
  if (!w) s.warnings.push_back("history across boots not recorded: " + w.error().message);
}

}  // namespace gt
