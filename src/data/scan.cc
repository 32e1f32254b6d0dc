#include "data/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "data/layouts.h"
#include "data/verify.h"
#include "util/errno_error.h"
#include "util/parallel.h"

namespace gt {
namespace {

// What the walk finds: a file's relative path, its DIR, and the directory
// it sits in (kept open, so verification opens it with openat by name and
// the kernel does not resolve the whole path again for every file).
struct Found {
  std::string rel;
  uint32_t dir_index = 0;
  uint32_t parent = 0;      // index into Walk::dir_fds
  uint32_t name_at = 0;     // rel.substr(name_at) is the file name
  uint64_t size_bytes = 0;  // from fstatat when d_type did not tell; else 0 until opened
  int64_t mtime_unix_s = 0;
  uint32_t mtime_nsec = 0;
  mode_t mode = S_IFREG;  // S_IFDIR, S_IFLNK, S_IFIFO...: kept only if named as a sample
};

// The folders a scan holds open, so each file is opened by name from its
// folder (a path over PATH_MAX, 4096 bytes, cannot be opened whole:
// ENAMETOOLONG). As many as the open-file limit allows, its soft limit raised
// to the hard one for the scan (at most 2^20) and given back after, less 256
// for the pool's open files and the rest of the process; past them, files
// are opened by path.
class HeldDirBudget {
 public:
  HeldDirBudget() {
    if (getrlimit(RLIMIT_NOFILE, &before_) != 0) return;
    struct rlimit up = before_;
    up.rlim_cur = std::min<rlim_t>(before_.rlim_max, rlim_t{1} << 20);
    raised_ = up.rlim_cur > before_.rlim_cur && setrlimit(RLIMIT_NOFILE, &up) == 0;
    const rlim_t now = raised_ ? up.rlim_cur : before_.rlim_cur;
    folders_ = now > 512 ? static_cast<size_t>(now - 256) : 256;
  }
  ~HeldDirBudget() {
    if (raised_) setrlimit(RLIMIT_NOFILE, &before_);
  }
  HeldDirBudget(const HeldDirBudget&) = delete;
  HeldDirBudget& operator=(const HeldDirBudget&) = delete;
  size_t folders() const { return folders_; }

 private:
  struct rlimit before_ {};
  bool raised_ = false;
  size_t folders_ = 256;
};

struct Walk {
  size_t max_held = 256;  // folders held open at most (HeldDirBudget)
  std::vector<Found> found;
  std::vector<int> dir_fds;  // -1: not held, open by path
  std::vector<std::string> errors;
  std::vector<std::string> unreadable_dirs;
  // The newest mtime of a folder listed (DIR's too): when a file was last
  // created, renamed or removed there. nullopt: no folder stat'ed.
  std::optional<int64_t> newest_dir_mtime;
  void saw_dir(const struct stat& st) {
    newest_dir_mtime = std::max(newest_dir_mtime.value_or(INT64_MIN), int64_t(st.st_mtim.tv_sec));
  }
  ~Walk() {
    for (int fd : dir_fds)
      if (fd >= 0) ::close(fd);
  }
};

// Adds one entry of the walk: a regular file, or any other kind (a
// directory, a link, a FIFO), which is kept only if its name is a sample's.
void record_entry(const char* name, const std::string& rel, uint32_t dir_index, uint32_t parent,
                  const struct stat& st, Walk& out) {
  Found& f = out.found.emplace_back();
  f.rel.reserve(rel.size() + 1 + std::strlen(name));
  if (!rel.empty()) (f.rel += rel) += '/';
  f.name_at = static_cast<uint32_t>(f.rel.size());
  f.rel += name;
  f.dir_index = dir_index;
  f.parent = parent;
  f.size_bytes = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
  f.mtime_unix_s = st.st_mtim.tv_sec;
  f.mtime_nsec = static_cast<uint32_t>(st.st_mtim.tv_nsec);
  f.mode = st.st_mode & S_IFMT;
}

// Recursive walk with openat + fstatat: no path re-resolution per file.
void walk(int dirfd, const std::string& root, const std::string& rel, uint32_t dir_index,
          Walk& out) {
  DIR* d = fdopendir(dirfd);
  if (d == nullptr) {
    const int err = errno;  // before the path is built
    out.errors.push_back(errno_error(err, root + "/" + rel).message);
    out.unreadable_dirs.push_back(rel.empty() ? root : root + "/" + rel);
    ::close(dirfd);
    return;
  }
  uint32_t parent = static_cast<uint32_t>(out.dir_fds.size());
  out.dir_fds.push_back(-1);
  bool held = false;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    // d_type saves a stat here: a regular file's one stat is taken on the
    // open file, on the pool (verify_one).
    struct stat st {};
    const bool deferred = e->d_type == DT_REG;
    if (deferred)
      st.st_mode = S_IFREG;
    else if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      const int err = errno;
      out.errors.push_back(
          errno_error(err, root + "/" + (rel.empty() ? e->d_name : rel + "/" + e->d_name)).message);
      continue;
    }
    if (!S_ISREG(st.st_mode)) record_entry(e->d_name, rel, dir_index, parent, st, out);
    if (S_ISDIR(st.st_mode)) {
      out.saw_dir(st);
      std::string child = rel.empty() ? e->d_name : rel + "/" + e->d_name;
      int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      const int err = errno;
      if (sub < 0) {
        out.errors.push_back(errno_error(err, root + "/" + child).message);
        out.unreadable_dirs.push_back(root + "/" + child);
      } else {
        walk(sub, root, child, dir_index, out);
      }
    } else if (S_ISREG(st.st_mode)) {
      if (!held && out.dir_fds.size() <= out.max_held) {
        out.dir_fds[parent] = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
        held = true;
      }
      record_entry(e->d_name, rel, dir_index, parent, st, out);
    }
  }
  closedir(d);
}

// A sample's path that is no regular file of its own: the job skips a path
// that exists (a directory, a link to another sample's bytes) and a write
// through a dangling link lands elsewhere. Never opened: a FIFO would block.
std::string not_regular_message(const std::string& path, mode_t mode) {
  const char* tail = "; the job skips a path that exists, so it would never redo this sample";
  if (S_ISDIR(mode)) return std::string("a directory, not a regular file") + tail;
  if (S_ISFIFO(mode)) return std::string("a FIFO, not a regular file (not read)") + tail;
  if (S_ISSOCK(mode)) return std::string("a socket, not a regular file") + tail;
  if (S_ISCHR(mode) || S_ISBLK(mode)) return std::string("a device, not a regular file") + tail;
  if (!S_ISLNK(mode)) return std::string("not a regular file") + tail;
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
  target.resize(n > 0 ? static_cast<size_t>(n) : 0);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "dangling link to " + target + ": a write to it goes to that target, not here";
  return "link to " + target + (S_ISREG(st.st_mode) ? " (another file's bytes)" : "") +
         ", not a regular file of its own" + tail;
}

void mark_not_regular(DirScan& scan, ScannedFile& f, mode_t mode) {
  f.verdict = FileVerdict::kBad;
  f.code = ProblemCode::kNotRegular;
  f.message = scan.texts.intern(not_regular_message(scan.path(f), mode));
}

// Where each file sits for openat: the held directory and the offset of its
// name in rel (8 bytes a file, kept apart from the ScannedFile list).
struct Where {
  uint32_t parent = 0;
  uint32_t name_at = 0;
  bool regular = true;  // false: never opened (a FIFO would block), bad already
};

// Quick mode's guess, before any file is opened, at which files its crash
// window (deep_check_recent) will hold, so each of them is checked whole on
// its one open: mtimes within the window of the newest folder mtime (a
// sample's file is created there, then written for a moment), or later for
// a file read whole anyway (kReadWholeBytes: its CRCs cost no read; one
// rewritten in place leaves its folder's mtime behind), and before the
// crash. A file the guess leaves out is opened again after (the window is
// known only from every file's stat); one it takes in needlessly costs its
// CRCs. Only the folders' and the files' own times and sizes decide it: the
// same tree gets the same checks, whatever the threads' order.
struct WindowGuess {
  std::optional<int64_t> folder;  // the newest folder mtime
  std::optional<int64_t> crash;
  int64_t window_s = 0;
  bool holds(int64_t mtime, uint64_t size) const {
    const bool near_folder = folder && mtime >= *folder - window_s &&
                             (mtime <= *folder + window_s || size <= kReadWholeBytes);
    return near_folder || (crash && mtime >= *crash - window_s && mtime <= *crash);
  }
};

// Quick mode, with a crash window (--recent not 0): deep_check_recent runs.
bool checks_recent(const ScanOptions& opts) {
  return !opts.deep && !opts.values && opts.recent_window_s > 0;
}

WindowGuess guess_window(const ScanOptions& opts, std::optional<int64_t> newest_dir_mtime) {
  if (!checks_recent(opts)) return {};
  return {newest_dir_mtime, opts.crash_unix_s, opts.recent_window_s};
}

struct VerifyJob {
  DirScan& scan;
  std::vector<Where>& where;
  const std::vector<int>& dir_fds;
  const ScanOptions& opts;
  ScanProgress* progress;
  WindowGuess guess;
};

// Opens a listed file (its one stat, on the open file) and verifies it. A
// name that is no regular file now (replaced since the listing) is bad and
// never read; one gone is unreadable.
void verify_one(const VerifyJob& job, size_t i, const VerifyOptions& vo,
                std::vector<uint8_t>& buffer) {
  if (!job.where[i].regular) return;
  ScannedFile& f = job.scan.files[i];
  std::unique_ptr<Hasher> hasher = job.opts.hash ? Hasher::make(*job.opts.hash) : nullptr;
  std::vector<StreamConsumer*> extra;
  if (hasher) extra.push_back(hasher.get());
  int dfd = job.dir_fds[job.where[i].parent];
  std::string path = job.scan.path(f);
  Result<FileSource::Opened> opened =
      dfd >= 0 ? FileSource::open_at(dfd, f.rel.c_str() + job.where[i].name_at, path)
               : FileSource::open_at(AT_FDCWD, path.c_str(), path);
  if (opened && !opened->file) {
    f.mtime_unix_s = opened->mtime_unix_s;
    f.mtime_nsec = 0;
    mark_not_regular(job.scan, f, opened->mode);
    job.where[i].regular = false;
    return;
  }
  FileCheck check;
  if (opened) {
    VerifyOptions options = vo;
    options.then_deep = job.guess.holds(opened->file->mtime_unix_s(), opened->file->size());
    check = verify_file(std::move(opened->file), path, options, buffer, extra);
  } else {
    check.io_error = opened.error().message;
  }
  bool io_error = check.io_error.has_value();
  const bool deep_checked = check.deep_checked;
  job.scan.record(f, std::move(check));
  f.crc_checked = vo.deep || vo.values || deep_checked;
  if (hasher && !io_error) {
    if (!f.extra) f.extra = std::make_unique<FileExtra>();
    f.extra->digest = hasher->hex();
  }
}

void verify_all(const VerifyJob& job) {
  on_pool(job.scan.files.size(), job.opts.threads, [&](size_t i, std::vector<uint8_t>& buffer) {
    job.scan.files[i].sample_index = sample_index(job.scan.layout, job.scan.files[i].rel);
    verify_one(job, i, VerifyOptions{job.opts.deep, job.opts.values, job.opts.allow_non_finite},
               buffer);
    if (job.progress) {
      job.progress->files_done++;
      job.progress->bytes_done += job.scan.files[i].size_bytes;
    }
  });
}

std::string_view basename_of(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? std::string_view(rel)
                                    : std::string_view(rel).substr(slash + 1);
}

// The times writing stopped, from the samples' mtimes (bad ones too: a
// truncated last file is the crash's), never from a file that is no sample
// (a progress.json written now), nor from a sample's name that is no regular
// file (a directory, FIFO or link made there is no write of the job's);
// every file's only when no file is a sample.
RecentCheck recent_check(const DirScan& scan, const ScanOptions& opts) {
  const SampleKeys keys(scan, scan.layout);
  std::vector<int64_t> samples, all;
  for (const ScannedFile& f : scan.files) {
    const std::string_view base = basename_of(f.rel);
    const bool not_regular = f.verdict == FileVerdict::kBad && f.code == ProblemCode::kNotRegular;
    if (f.verdict == FileVerdict::kUnreadable || not_regular ||
        is_marker_or_lock(base, f.size_bytes) || is_stale_temp(base))
      continue;
    all.push_back(f.mtime_unix_s);
    if (keys.index(f) != kNoSample) samples.push_back(f.mtime_unix_s);
  }
  const bool none = samples.empty();
  RecentCheck rc{opts.recent_window_s, std::nullopt, {}, 0};
  rc.anchors =
      recent_anchors(none ? std::move(all) : std::move(samples), opts.recent_window_s,
                     opts.crash_unix_s, none ? AnchorKind::kNewestFile : AnchorKind::kNewestSample);
  if (!rc.anchors.empty() && rc.anchors.front().kind != AnchorKind::kCrash)
    rc.newest_unix_s = rc.anchors.front().unix_s;
  return rc;
}

// Quick mode, after verify_all: the files written in the window before each
// time writing stopped (from the samples' mtimes, without the files that
// proved unreadable: their mtimes anchor nothing) are the ones a crash puts
// at risk (unflushed pages, delayed allocation). Each one the quick check
// passed is opened again and checked whole (every CRC), and marked changed
// if its size or mtime moved between the two checks.
void deep_check_recent(const VerifyJob& job) {
  DirScan& scan = job.scan;
  RecentCheck rc = recent_check(scan, job.opts);
  std::vector<size_t> again;
  size_t checked = 0;
  for (size_t i = 0; i < scan.files.size(); ++i) {
    const ScannedFile& f = scan.files[i];
    if (!in_recent_window(f.mtime_unix_s, rc.anchors, rc.window_s)) continue;
    if (f.crc_checked)
      ++checked;
    else if (f.verdict != FileVerdict::kUnreadable && f.verdict != FileVerdict::kBad)
      again.push_back(i);
  }
  VerifyOptions vo{true, false, false};
  on_pool(again.size(), job.opts.threads, [&](size_t k, std::vector<uint8_t>& buffer) {
    ScannedFile& f = scan.files[again[k]];
    uint64_t size = f.size_bytes;
    int64_t mtime = f.mtime_unix_s;
    uint32_t nsec = f.mtime_nsec;
    bool was_changed = f.changed;
    verify_one(job, again[k], vo, buffer);
    f.changed =
        was_changed || f.size_bytes != size || f.mtime_unix_s != mtime || f.mtime_nsec != nsec;
  });
  rc.files = checked + again.size();
  scan.recent = rc;
}

}  // namespace

uint32_t TextPool::intern(std::string_view text) {
  std::lock_guard<std::mutex> lock(*mu_);
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(texts_.size());
  ids_.emplace(texts_.emplace_back(text), id);
  return id;
}

std::string DirScan::path(const ScannedFile& f) const {
  const std::string& root = dirs[f.dir_index];
  if (root == ".") return f.rel;
  std::string out;
  bool slash = root.ends_with("/");
  out.reserve(root.size() + !slash + f.rel.size());
  out += root;
  if (!slash) out += '/';
  return out += f.rel;
}

std::vector<Problem> DirScan::problems(const ScannedFile& f) const {
  std::vector<Problem> out;
  if (f.verdict != FileVerdict::kBad) return out;
  out.push_back({f.code, message(f)});
  if (f.extra) out.insert(out.end(), f.extra->more_problems.begin(), f.extra->more_problems.end());
  return out;
}

void DirScan::record(ScannedFile& f, FileCheck&& check) {
  if (check.size_bytes) f.size_bytes = *check.size_bytes;
  if (check.mtime_unix_s) {
    f.mtime_unix_s = *check.mtime_unix_s;
    f.mtime_nsec = check.mtime_nsec;
  }
  f.bytes_read = check.bytes_read;
  f.changed = f.changed || check.changed_while_read;
  f.extra.reset();
  f.message = 0;
  if (check.io_error) {
    f.verdict = FileVerdict::kUnreadable;
    f.message = texts.intern(*check.io_error);
  } else if (!check.problems.empty()) {
    f.verdict = FileVerdict::kBad;
    f.code = check.problems.front().code;
    f.message = texts.intern(check.problems.front().message);
  } else if (check.unverifiable) {
    f.verdict = FileVerdict::kUnverifiable;
    f.message = texts.intern(*check.unverifiable);
  } else {
    f.verdict = FileVerdict::kIntact;
  }
  if (check.problems.size() > 1 || check.values) {
    f.extra = std::make_unique<FileExtra>();
    if (check.problems.size() > 1)
      f.extra->more_problems.assign(std::make_move_iterator(check.problems.begin() + 1),
                                    std::make_move_iterator(check.problems.end()));
    f.extra->values = std::move(check.values);
  }
}

Result<DirScan> scan_dirs(const ScanOptions& opts, ScanProgress* progress) {
  const HeldDirBudget budget;  // before the walk: its fds are closed before the limit goes back
  Walk w;
  w.max_held = budget.folders();
  for (size_t i = 0; i < opts.dirs.size(); ++i) {
    const std::string& dir = opts.dirs[i];
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_error(errno, "cannot open directory " + dir);
    if (struct stat st{}; fstat(fd, &st) == 0) w.saw_dir(st);
    walk(fd, dir, "", static_cast<uint32_t>(i), w);
  }
  // Sort views of the records (no string is moved), then move each record
  // into its ScannedFile in that order.
  struct Order {
    std::string_view rel;
    uint32_t dir_index = 0, k = 0;
  };
  std::vector<Order> order(w.found.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = {w.found[k].rel, w.found[k].dir_index, k};
  std::sort(order.begin(), order.end(), [](const Order& a, const Order& b) {
    return a.dir_index != b.dir_index ? a.dir_index < b.dir_index : a.rel < b.rel;
  });
  DirScan scan;
  // The layout from the regular files; of the other entries only those
  // named as a sample stay (the job would skip them, or write elsewhere).
  {
    std::vector<std::string_view> regular;
    for (const Order& o : order)
      if (w.found[o.k].mode == S_IFREG) regular.push_back(o.rel);
    scan.layout = detect_layout(opts.layout, regular);
  }
  std::erase_if(order, [&](const Order& o) {
    return w.found[o.k].mode != S_IFREG && !sample_key(scan.layout, o.rel);
  });
  scan.dirs = opts.dirs;
  scan.errors = std::move(w.errors);
  scan.unreadable_dirs = std::move(w.unreadable_dirs);
  scan.files.resize(order.size());
  std::vector<Where> where(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    Found& f = w.found[order[k].k];
    ScannedFile& out = scan.files[k];
    out.rel = std::move(f.rel);
    out.dir_index = f.dir_index;
    out.size_bytes = f.size_bytes;
    out.mtime_unix_s = f.mtime_unix_s;
    out.mtime_nsec = f.mtime_nsec;
    where[k] = {f.parent, f.name_at, f.mode == S_IFREG};
    if (f.mode != S_IFREG) mark_not_regular(scan, out, f.mode);
  }
  std::vector<Found>().swap(w.found);
  std::vector<Order>().swap(order);
  if (progress) progress->files_total = scan.files.size();
  scan.indexed_under = scan.layout;
  VerifyJob job{scan, where, w.dir_fds, opts, progress, guess_window(opts, w.newest_dir_mtime)};
  verify_all(job);
  if (checks_recent(opts)) deep_check_recent(job);
  return scan;
}

}  // namespace gt
