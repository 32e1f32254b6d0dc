#include "watch/data_follow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "data/check_data_dir.h"
#include "data/layouts.h"
#include "data/progress.h"
#include "data/verify.h"
#include "util/fs_root.h"
#include "util/timespec_ns.h"

namespace gt {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kPaceWindowMs = 5 * 60 * 1000;
/// The previous pace is read from the files written in this window before
/// the newest one (a job's pace drifts; the last half hour is its current).
constexpr double kPreviousWindowS = 30 * 60;
/// An mtime later than this past the start is a skewed clock or `touch -d`,
/// not a time the job wrote at: it gives no pace.
constexpr double kMaxFutureS = 24 * 3600;

bool plausible_mtime(int64_t mtime_ns, int64_t now_ms) {
  return !timespec_ns_saturated(mtime_ns) &&
         static_cast<double>(mtime_ns) / 1e9 <= static_cast<double>(now_ms) / 1000 + kMaxFutureS;
}

/// The regular files under `dir` (links not followed), relative names.
/// Unreadable subdirectories are skipped; they do not stop the walk.
std::map<std::string, std::pair<uint64_t, int64_t>> list_files(const std::string& dir) {
  std::map<std::string, std::pair<uint64_t, int64_t>> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (is_stale_temp(p.filename().string())) continue;  // a writer's temporary
    out[p.lexically_relative(dir).string()] = {static_cast<uint64_t>(st.st_size),
                                               timespec_ns(st.st_mtim)};
  }
  return out;
}

/// Files per minute and the usual interval from the baseline's mtimes.
void previous_pace(const std::vector<double>& mtimes_s, std::optional<double>& per_min,
                   std::optional<double>& interval_s) {
  if (mtimes_s.size() < 3) return;
  double span = 0;
  if (mtimes_clustered(mtimes_s, span)) return;  // a copy or restore: no pace to read
  std::vector<double> m = mtimes_s;
  std::sort(m.begin(), m.end());
  const double newest = m.back();
  auto first = std::lower_bound(m.begin(), m.end(), newest - kPreviousWindowS);
  const size_t n = static_cast<size_t>(m.end() - first);
  const double window = newest - *first;
  if (n < 3 || window <= 0) return;
  interval_s = window / static_cast<double>(n - 1);
  per_min = 60.0 / *interval_s;
}

std::string minutes_text(double s) {
  if (s < 120) return std::to_string(static_cast<int>(std::lround(s))) + " s";
  return std::to_string(static_cast<int>(std::lround(s / 60))) + " min";
}

}  // namespace

bool DataFollower::Identity::same_folder(const Identity& o) const {
  return dev == o.dev && ino == o.ino && (!born || !o.born || *born == *o.born);
}

int DataFollower::identify(Identity& id) const {
  struct statx sx {};
  if (::statx(AT_FDCWD, dir_.c_str(), AT_STATX_SYNC_AS_STAT, STATX_TYPE | STATX_INO | STATX_BTIME,
              &sx) == 0) {
    if (!S_ISDIR(sx.stx_mode)) return ENOTDIR;
    id.dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    id.ino = static_cast<ino_t>(sx.stx_ino);
    if (sx.stx_mask & STATX_BTIME) id.born = {sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec};
    return 0;
  }
  if (errno != ENOSYS) return errno;
  struct stat st {};  // a kernel before statx (4.11)
  if (::stat(dir_.c_str(), &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  return 0;
}

DataFollower::DataFollower(std::string dir, std::optional<int64_t> expect, int64_t now, bool values)
    : dir_(std::move(dir)), expect_(expect), values_(values) {
  last_new_ms_ = now;
  Identity id;
  // Not there (yet): no baseline; poll() follows the path and says when it appears.
  if (identify(id) != 0) return;
  identity_ = id;
  home_dev_ = id.dev;
  std::vector<double> mtimes;
  for (const auto& [rel, sm] : list_files(dir_)) {
    Seen s;
    s.size = sm.first;
    s.mtime_ns = sm.second;
    s.changed_ms = now;
    s.verified = true;
    s.baseline = true;
    seen_[rel] = s;
    if (plausible_mtime(sm.second, now)) mtimes.push_back(static_cast<double>(sm.second) / 1e9);
  }
  // The samples there now, as the triage's --data counts them (quick mode:
  // the recent files CRC-checked).
  if (expect_) baseline_intact_ = check_data_dir({dir_, expect_, false}, FsRoot("/")).samples;
  previous_pace(mtimes, progress_.previous_per_min, usual_interval_s_);
  progress_.files = seen_.size();
}

Change DataFollower::change(ChangeKind kind, Severity sev, std::string text, int64_t now) const {
  Change c;
  c.time_unix_ms = now;
  c.kind = kind;
  c.severity = sev;
  c.path = dir_;
  c.text = std::move(text);
  return c;
}

bool DataFollower::follow_path(int64_t now, std::vector<Change>& out) {
  Identity id;
  if (const int err = identify(id); err != 0) {
    lost(err, now, out);
    return false;
  }
  if (!identity_) {  // appeared after watch started
    home_dev_ = id.dev;
    adopt(id, now);
    out.push_back(change(ChangeKind::kDataCreated, Severity::kInfo,
                         "data folder created: following it, each file in it new", now));
    return true;
  }
  if (id.dev != home_dev_) {  // the mount point under an unmounted filesystem
    lost(0, now, out);
    return false;
  }
  if (id.same_folder(*identity_)) {
    if (progress_.gone) {
      progress_.gone = false;
      out.push_back(change(ChangeKind::kDataBack, Severity::kInfo, "data folder is back", now));
    }
    return true;
  }
  // Another folder at the path, on the same filesystem: the job made it anew.
  const size_t old_files = seen_.size();
  adopt(id, now);
  out.push_back(change(ChangeKind::kDataCreated, Severity::kWarning,
                       "data folder recreated (" + std::to_string(old_files) +
                           " files of the old one no longer there): following the new one, "
                           "each file in it new",
                       now));
  return true;
}

void DataFollower::lost(int err, int64_t now, std::vector<Change>& out) {
  if (!identity_ && err == ENOENT) {
    if (!progress_.waiting)
      out.push_back(change(ChangeKind::kNote, Severity::kInfo,
                           "data folder does not exist yet: waiting for it", now));
    progress_.waiting = true;
    return;
  }
  if (progress_.gone) return;
  progress_.gone = true;
  out.push_back(change(ChangeKind::kDataGone, Severity::kCritical,
                       identity_ ? "data folder is gone or is another filesystem now "
                                   "(unmounted?): the job's output is not where it was"
                                 : "data folder cannot be read: " + std::string(std::strerror(err)),
                       now));
}

void DataFollower::adopt(Identity id, int64_t now) {
  identity_ = id;
  seen_.clear();  // every file of this folder is new
  baseline_intact_ = 0;
  intact_before_recreated_ = progress_.new_intact;
  last_new_ms_ = now;
  progress_.gone = progress_.waiting = progress_.stalled = false;
}

std::vector<Change> DataFollower::poll(int64_t now) {
  std::vector<Change> out;
  if (!follow_path(now, out)) return out;
  const auto listing = list_files(dir_);
  for (const auto& [rel, sm] : listing) {
    auto [it, inserted] = seen_.try_emplace(rel);
    Seen& s = it->second;
    if (inserted || s.size != sm.first || s.mtime_ns != sm.second) {
      s.size = sm.first;
      s.mtime_ns = sm.second;
      s.changed_ms = now;
      s.verified = false;
      s.baseline = false;
    }
  }
  // Files removed since (moved away, renamed): forget them.
  for (auto it = seen_.begin(); it != seen_.end();)
    it = listing.count(it->first) ? std::next(it) : seen_.erase(it);
  progress_.files = seen_.size();
  verify_settled(now, out);
  update_pace(now, out);
  return out;
}

void DataFollower::verify_settled(int64_t now, std::vector<Change>& out) {
  std::vector<uint8_t> buffer;
  VerifyOptions vo;
  vo.deep = true;  // structure and every CRC: it was just written
  vo.values = values_;
  progress_.pending = 0;
  for (auto& [rel, s] : seen_) {
    if (s.verified) continue;
    if (now - s.changed_ms < kSettleS * 1000) {
      ++progress_.pending;
      continue;
    }
    const std::string path = (fs::path(dir_) / rel).string();
    FileCheck fc = verify_path(path, vo, buffer);
    if (fc.changed_while_read) continue;  // still being written: next tick
    s.verified = true;
    if (fc.intact()) {
      ++progress_.new_intact;
      intact_.push_back(Intact{now, s.mtime_ns});
      last_new_ms_ = now;
      continue;
    }
    if (fc.unverifiable && fc.problems.empty() && !fc.io_error) continue;  // not bad, not known
    ++progress_.new_bad;
    std::string why = fc.io_error ? "cannot read: " + *fc.io_error
                                  : std::string(problem_code_name(fc.problems[0].code)) + ": " +
                                        fc.problems[0].message;
    progress_.last_bad = DataBadFile{rel, why, now};
    if (progress_.bad_files.size() < DataFollowProgress::kMaxListedBad)
      progress_.bad_files.push_back(*progress_.last_bad);
    Change c = change(ChangeKind::kBadFile, Severity::kCritical, "new file is bad: " + why, now);
    c.path = path;
    out.push_back(c);
  }
}

void DataFollower::note_stall(Change c, std::vector<Change>& out) {
  progress_.stalls.push_back(c);
  if (progress_.stalls.size() > DataFollowProgress::kMaxListedStalls) progress_.stalls.pop_front();
  out.push_back(std::move(c));
}

// The pace is read from when the new files were written (their mtimes), not
// from when a tick saw them: a loaded node's slow tick sees three files
// written 0.5 s apart at once, and their observed span is 0. The observed
// times are used when any mtime is not one the job could have written at.
std::optional<double> DataFollower::pace_span_s(int64_t now) const {
  if (intact_.size() < 2) return std::nullopt;
  const bool mtimes_usable = std::all_of(intact_.begin(), intact_.end(), [&](const Intact& f) {
    // A file moved in from elsewhere keeps an old mtime: not a time it was written here.
    return plausible_mtime(f.mtime_ns, now) && f.mtime_ns / 1000000 >= f.seen_ms - kPaceWindowMs;
  });
  if (!mtimes_usable)
    return static_cast<double>(intact_.back().seen_ms - intact_.front().seen_ms) / 1000.0;
  const auto [lo, hi] =
      std::minmax_element(intact_.begin(), intact_.end(),
                          [](const Intact& a, const Intact& b) { return a.mtime_ns < b.mtime_ns; });
  return static_cast<double>(hi->mtime_ns - lo->mtime_ns) / 1e9;
}

void DataFollower::update_pace(int64_t now, std::vector<Change>& out) {
  while (!intact_.empty() && now - intact_.front().seen_ms > kPaceWindowMs) intact_.pop_front();
  progress_.per_min.reset();
  progress_.eta_s.reset();
  const std::optional<double> span_s = pace_span_s(now);
  if (span_s && *span_s > 0) {
    const auto gaps = static_cast<double>(intact_.size() - 1);
    progress_.per_min = 60.0 * gaps / *span_s;
    usual_interval_s_ = *span_s / gaps;
  }
  if (expect_) {
    progress_.remaining = std::max<int64_t>(
        0, *expect_ - static_cast<int64_t>(baseline_intact_ + progress_.new_intact -
                                           intact_before_recreated_));
    const std::optional<double> pace =
        progress_.per_min ? progress_.per_min : progress_.previous_per_min;
    if (pace && *pace > 0)
      progress_.eta_s = 60.0 * static_cast<double>(*progress_.remaining) / *pace;
  }
  // A stall: nothing new for several usual intervals (never before the pace is known).
  if (!usual_interval_s_) return;
  const double limit_s = std::max(kStallFactor * *usual_interval_s_, kMinStallS);
  const double quiet_s = (now - last_new_ms_) / 1000.0;
  if (quiet_s > limit_s && !progress_.stalled) {
    progress_.stalled = true;
    progress_.stall_reason = "no new file for " + minutes_text(quiet_s) + " (usual interval " +
                             minutes_text(*usual_interval_s_) + ")";
    note_stall(
        change(ChangeKind::kStall, Severity::kWarning, "stall: " + progress_.stall_reason, now),
        out);
  } else if (quiet_s <= limit_s && progress_.stalled) {
    progress_.stalled = false;
    progress_.stall_reason.clear();
    note_stall(change(ChangeKind::kResumed, Severity::kInfo, "new files again", now), out);
  }
}

}  // namespace gt
