#include "data/scan.h"

#include <dirent.h>
#include <fcntl.h>
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
  uint64_t size_bytes = 0;  // from fstatat when d_type did not tell; else 0 until stat_all
  int64_t mtime_unix_s = 0;
  uint32_t mtime_nsec = 0;
  mode_t mode = S_IFREG;   // S_IFDIR, S_IFLNK, S_IFIFO...: kept only if named as a sample
  bool stat_known = true;  // false: d_type said a regular file, stat_all stats it
};

// Directory fds kept open for openat; past this many, files are opened by path.
constexpr size_t kMaxHeldDirs = 512;

struct Walk {
  std::vector<Found> found;
  std::vector<int> dir_fds;  // -1: not held, open by path
  std::vector<std::string> errors;
  std::vector<std::string> unreadable_dirs;
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
    // d_type saves a stat here: a regular file's is taken by stat_all, on
    // the pool, its one stat (the open file is not stat'ed again).
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
      if (!held && out.dir_fds.size() <= kMaxHeldDirs) {
        out.dir_fds[parent] = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
        held = true;
      }
      record_entry(e->d_name, rel, dir_index, parent, st, out);
      out.found.back().stat_known = !deferred;
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
  bool regular = true;     // false: never opened (a FIFO would block), bad already
  bool stat_known = true;  // false: stat_all takes its stat
  bool recent = false;     // quick mode: deep-checked after its quick check
};

struct VerifyJob {
  DirScan& scan;
  std::vector<Where>& where;
  const std::vector<int>& dir_fds;
  const ScanOptions& opts;
  ScanProgress* progress;
};

void verify_one(const VerifyJob& job, size_t i, const VerifyOptions& vo,
                std::vector<uint8_t>& buffer) {
  if (!job.where[i].regular) return;
  ScannedFile& f = job.scan.files[i];
  std::unique_ptr<Hasher> hasher = job.opts.hash ? Hasher::make(*job.opts.hash) : nullptr;
  std::vector<StreamConsumer*> extra;
  if (hasher) extra.push_back(hasher.get());
  int dfd = job.dir_fds[job.where[i].parent];
  std::string path = job.scan.path(f);
  const FileStat st{f.size_bytes, f.mtime_unix_s, f.mtime_nsec};
  FileCheck check = dfd >= 0 ? verify_known(dfd, f.rel.c_str() + job.where[i].name_at, path, st, vo,
                                            buffer, extra)
                             : verify_known(AT_FDCWD, path.c_str(), path, st, vo, buffer, extra);
  bool io_error = check.io_error.has_value();
  const bool deep_checked = check.deep_checked;
  job.scan.record(f, std::move(check));
  f.crc_checked = vo.deep || vo.values || deep_checked;
  if (hasher && !io_error) {
    if (!f.extra) f.extra = std::make_unique<FileExtra>();
    f.extra->digest = hasher->hex();
  }
}

// The one stat of each regular file d_type named (links not followed), on
// the pool: size and mtime, before any file is opened, so quick mode knows
// its recent files first. A file gone since the walk is unreadable; one
// that is no regular file now is bad, never opened.
void stat_one(const VerifyJob& job, size_t i) {
  Where& w = job.where[i];
  if (w.stat_known) return;
  ScannedFile& f = job.scan.files[i];
  const int dfd = job.dir_fds[w.parent];
  struct stat st {};
  if (dfd >= 0 ? fstatat(dfd, f.rel.c_str() + w.name_at, &st, AT_SYMLINK_NOFOLLOW)
               : fstatat(AT_FDCWD, job.scan.path(f).c_str(), &st, AT_SYMLINK_NOFOLLOW)) {
    const int err = errno;  // before the message is built
    FileCheck check;
    check.io_error = errno_error(err, "opening " + job.scan.path(f)).message;
    job.scan.record(f, std::move(check));
    w.regular = false;
    return;
  }
  f.mtime_unix_s = st.st_mtim.tv_sec;
  f.mtime_nsec = static_cast<uint32_t>(st.st_mtim.tv_nsec);
  if (!S_ISREG(st.st_mode)) {
    mark_not_regular(job.scan, f, st.st_mode & S_IFMT);
    w.regular = false;
    return;
  }
  f.size_bytes = static_cast<uint64_t>(st.st_size);
}

void stat_all(const VerifyJob& job) {
  on_pool(job.scan.files.size(), job.opts.threads,
          [&](size_t i, std::vector<uint8_t>&) { stat_one(job, i); });
}

void verify_all(const VerifyJob& job) {
  on_pool(job.scan.files.size(), job.opts.threads, [&](size_t i, std::vector<uint8_t>& buffer) {
    VerifyOptions vo{job.opts.deep, job.opts.values, job.opts.allow_non_finite,
                     job.where[i].recent};
    verify_one(job, i, vo, buffer);
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
// (a progress.json written now); every file's only when no file is a sample.
RecentCheck recent_check(const DirScan& scan, const ScanOptions& opts) {
  std::vector<int64_t> samples, all;
  for (const ScannedFile& f : scan.files) {
    const std::string_view base = basename_of(f.rel);
    if (f.verdict == FileVerdict::kUnreadable || is_marker_or_lock(base, f.size_bytes) ||
        is_stale_temp(base))
      continue;
    all.push_back(f.mtime_unix_s);
    if (sample_key(scan.layout, f.rel)) samples.push_back(f.mtime_unix_s);
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

// Quick mode: the files written in the window before each time writing
// stopped are the ones a crash puts at risk (unflushed pages, delayed
// allocation); they get the full CRC check, after their quick check, on the
// same open file (verify_all). Marked from the stats, before any file is
// opened.
std::vector<size_t> in_window(const DirScan& scan, const RecentCheck& rc) {
  std::vector<size_t> out;
  for (size_t i = 0; i < scan.files.size(); ++i) {
    const ScannedFile& f = scan.files[i];
    if (f.verdict != FileVerdict::kUnreadable && f.verdict != FileVerdict::kBad &&
        in_recent_window(f.mtime_unix_s, rc.anchors, rc.window_s))
      out.push_back(i);
  }
  return out;
}

void mark_recent(const VerifyJob& job) {
  for (size_t i : in_window(job.scan, recent_check(job.scan, job.opts))) job.where[i].recent = true;
}

// After verify_all the window again, now without the files that proved
// unreadable (their mtimes anchor nothing): a file in it not yet
// deep-checked (the window moved, or a digest was wanted) is opened again
// and checked whole now, and marked changed if its size or mtime moved
// between the two checks.
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
  Walk w;
  for (size_t i = 0; i < opts.dirs.size(); ++i) {
    const std::string& dir = opts.dirs[i];
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_error(errno, "cannot open directory " + dir);
    walk(fd, dir, "", static_cast<uint32_t>(i), w);
  }
  // Sort the small records, then move each into its ScannedFile.
  std::sort(w.found.begin(), w.found.end(), [](const Found& a, const Found& b) {
    return a.dir_index != b.dir_index ? a.dir_index < b.dir_index : a.rel < b.rel;
  });
  DirScan scan;
  // The layout from the regular files; of the other entries only those
  // named as a sample stay (the job would skip them, or write elsewhere).
  {
    std::vector<std::string_view> regular;
    for (const Found& f : w.found)
      if (f.mode == S_IFREG) regular.push_back(f.rel);
    scan.layout = detect_layout(opts.layout, regular);
  }
  std::erase_if(w.found, [&](const Found& f) {
    return f.mode != S_IFREG && !sample_key(scan.layout, f.rel);
  });
  scan.dirs = opts.dirs;
  scan.errors = std::move(w.errors);
  scan.unreadable_dirs = std::move(w.unreadable_dirs);
  scan.files.resize(w.found.size());
  std::vector<Where> where(w.found.size());
  for (size_t k = 0; k < w.found.size(); ++k) {
    Found& f = w.found[k];
    ScannedFile& out = scan.files[k];
    out.rel = std::move(f.rel);
    out.dir_index = f.dir_index;
    out.size_bytes = f.size_bytes;
    out.mtime_unix_s = f.mtime_unix_s;
    out.mtime_nsec = f.mtime_nsec;
    where[k] = {f.parent, f.name_at, f.mode == S_IFREG, f.stat_known};
    if (f.mode != S_IFREG) mark_not_regular(scan, out, f.mode);
  }
  std::vector<Found>().swap(w.found);
  if (progress) progress->files_total = scan.files.size();
  VerifyJob job{scan, where, w.dir_fds, opts, progress};
  stat_all(job);
  const bool window = !opts.deep && !opts.values && opts.recent_window_s > 0;
  if (window) mark_recent(job);
  verify_all(job);
  if (window) deep_check_recent(job);
  return scan;
}

}  // namespace gt
