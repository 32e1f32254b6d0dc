#include "data/check_data_dir.h"

#include <algorithm>
#include <chrono>

#include "data/analysis.h"
#include "data/resume.h"
#include "data/resume_advice.h"
#include "data/writers.h"
#include "util/fs_space.h"
#include "util/real_path.h"
#include "util/shell_word.h"

namespace gt {
namespace {

/// DIR's sibling "DIR.bad" (DIR resolved): outside the scan set and, unless
/// DIR is itself a mount point, on the same filesystem; the caller checks it
/// as `gpu-triage data --move-bad-to` would, before offering it.
std::string sibling_bad_dir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + ".bad";
}

/// Files written this recently may belong to a job still running: moving
/// them away under it would race its next save.
constexpr int64_t kRecentWriteS = 120;

/// Why the move command is withheld, or "" when it can be offered.
std::string why_not_move(const DataReport& r, const DataCheck& d, const std::string& abs,
                         const std::string& bad_dir, int64_t now) {
  int64_t newest = 0;  // any file, bad ones included: a half-written file is the newest
  for (const ScannedFile& f : r.scan->files) newest = std::max(newest, f.mtime_unix_s);
  if (r.layout.kind == Layout::kEagle)
    return "EAGLE's scripts name files by counting the folder: rerun the worker into an empty "
           "folder instead of moving files";
  if (!d.writers.empty()) return "a process still writes into " + d.dir;
  if (newest > 0 && now - newest < kRecentWriteS)
    return "files were written in the last 2 minutes: the job may still be running";
  if (Status s = check_move_target(bad_dir, {abs}); !s) return s.error().message;
  return "";
}

DirScan* keep(Result<DirScan>& scan) { return scan ? &*scan : nullptr; }

void fill(const DataReport& r, DataCheck& d) {
  d.layout = layout_name(r.layout.kind);
  d.files = r.files;
  d.intact_files = r.ok + r.ok_other;
  d.samples = r.progress.samples_done;
  d.crc_checked = r.crc_checked;
  d.bad_count = r.bad.size();
  for (uint32_t i : r.bad) {
    if (d.bad.size() == DataCheck::kMaxListed) break;
    d.bad.emplace_back(r.path(i), r.problem(i));
  }
  d.gap_count = r.gap_count;
  d.gaps = format_key_runs(r.gaps, 10);
  if (r.not_started) {
    d.not_started = r.not_started->count();
    d.not_started_range = std::make_pair(r.not_started->first, r.not_started->last);
  }
  d.layout_skips_samples = layout_skips_samples(r.layout.kind);
  d.stale = r.stale;
  if (!r.stale.empty()) d.stale_advice = stale_advice(!d.writers.empty());
  d.errors = r.errors;
  d.last_write_unix_s = r.progress.last_write_unix_s;
  d.outside_expect = r.outside_range;
}

}  // namespace

DataCheck check_data_dir(const DataCheckRequest& req, const FsRoot& root) {
  DataCheck d;
  d.dir = req.dir;
  d.deep = req.deep;
  d.expect = req.expect;
  ScanOptions so;
  so.dirs = {req.dir};
  so.deep = req.deep;
  so.crash_unix_s = req.crash_unix_s;
  Result<DirScan> scan = scan_dirs(so);
  if (!keep(scan)) {
    d.error = scan.error().message;
    return d;
  }
  // A file a live process has open for writing is its writer's, not done.
  const std::vector<Writer> writers = writers_under(root, {req.dir});
  mark_being_written(*scan, writers);
  d.writers = writer_lines(writers);
  AnalysisOptions ao;
  ao.layout = scan->layout;
  if (req.expect && ao.layout.kind != Layout::kEagle) ao.range = std::make_pair(0, *req.expect);
  ao.now_unix_s = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  ao.free_bytes = free_bytes(req.dir);
  DataReport r = analyze(*scan, ao);
  const std::string abs = real_path(req.dir).value_or(req.dir);  // else as given
  r.dirs = {shell_word(abs)};
  r.deep = req.deep;
  fill(r, d);
  const std::string bad_dir = sibling_bad_dir(abs);
  if (!r.bad.empty() || !r.changed.empty())
    d.move_withheld = why_not_move(r, d, abs, bad_dir, ao.now_unix_s);
  const bool offer = (!r.bad.empty() || !r.changed.empty()) && d.move_withheld.empty();
  d.how_to_resume = resume_advice(r, {"", shell_word(bad_dir), {}, d.move_withheld});
  if (offer)
    d.move_command = "gpu-triage data " + shell_word(abs) +
                     (req.expect ? " --expect " + std::to_string(*req.expect) : "") +
                     " --deep --move-bad-to " + shell_word(bad_dir);
  return d;
}

}  // namespace gt
