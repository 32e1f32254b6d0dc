#include "history/run_history.h"

#include <chrono>

#include "history/record.h"
#include "history/state_file.h"

namespace gt {

void load_history(const std::optional<std::string>& state_dir, bool no_state, const FsRoot& root,
                  NodeSnapshot& snap) {
  if (no_state || (root.root() != "/" && !state_dir)) return;
  const std::string dir = state_dir.value_or(kDefaultStateDir);
  Result<GpuHistory> h = open_history(dir, root, snap.warnings);
  if (!h) {
    snap.warnings.push_back("history across boots not kept: " + h.error().message +
                            " (repeated Xids are not escalated; --state-dir DIR, or --no-state)");
    return;
  }
  snap.history = std::move(*h);
}

void record_run(Report& report) {
  NodeSnapshot& s = report.snapshot;
  if (!s.history) return;
  GpuHistory h = *s.history;  // the snapshot keeps what was judged
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  add_run(h, now, observed_findings(s, report.findings));
  if (Status w = write_history(h); !w)
    s.warnings.push_back("history across boots not recorded: " + w.error().message);
}

}  // namespace gt
