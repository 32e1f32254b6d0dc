#include "data/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "data/layouts.h"
#include "data/verify.h"
#include "util/errno_error.h"

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
  uint64_t size_bytes = 0;  // from fstatat when d_type did not tell; else 0 until verified
  int64_t mtime_unix_s = 0;
  mode_t mode = S_IFREG;  // S_IFDIR, S_IFLNK, S_IFIFO...: kept only if named as a sample
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
    // d_type saves a stat per file: size and mtime come from the fstat of
    // the opened file during verification.
    struct stat st {};
    if (e->d_type == DT_REG)
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
    }
  }
  closedir(d);
}

// Where each file sits for openat: the held directory and the offset of its
// name in rel (8 bytes a file, kept apart from the ScannedFile list).
struct Where {
  uint32_t parent = 0;
  uint32_t name_at = 0;
  bool regular = true;  // false: never opened (a FIFO would block), bad already
};

struct VerifyJob {
  DirScan& scan;
  const std::vector<Where>& where;
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
  FileCheck check =
      dfd >= 0 ? verify_at(dfd, f.rel.c_str() + job.where[i].name_at, path, vo, buffer, extra)
               : verify_path(path, vo, buffer, extra);
  bool io_error = check.io_error.has_value();
  job.scan.record(f, std::move(check));
  f.crc_checked = vo.deep || vo.values;
  if (hasher && !io_error) {
    if (!f.extra) f.extra = std::make_unique<FileExtra>();
    f.extra->digest = hasher->hex();
  }
}

// Runs `body(i)` for each index on a pool of threads, each with its own
// read buffer.
template <typename Body>
void on_pool(size_t count, unsigned threads, Body&& body) {
  unsigned n = threads ? threads : std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  n = std::max(1u, std::min<unsigned>(n, count));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::vector<uint8_t> buffer;
    for (size_t i = next++; i < count; i = next++) body(i, buffer);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

void verify_all(const VerifyJob& job) {
  VerifyOptions vo{job.opts.deep, job.opts.values, job.opts.allow_non_finite};
  on_pool(job.scan.files.size(), job.opts.threads, [&](size_t i, std::vector<uint8_t>& buffer) {
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
// allocation); they get the full CRC check. A file whose size or mtime
// moved between the two passes is marked changed.
void deep_check_recent(const VerifyJob& job) {
  DirScan& scan = job.scan;
  RecentCheck rc = recent_check(scan, job.opts);
  std::vector<size_t> recent;
  for (size_t i = 0; i < scan.files.size(); ++i) {
    const ScannedFile& f = scan.files[i];
    if (f.verdict != FileVerdict::kUnreadable && f.verdict != FileVerdict::kBad &&
        in_recent_window(f.mtime_unix_s, rc.anchors, rc.window_s))
      recent.push_back(i);
  }
  VerifyOptions vo{true, false, false};
  on_pool(recent.size(), job.opts.threads, [&](size_t k, std::vector<uint8_t>& buffer) {
    ScannedFile& f = scan.files[recent[k]];
    uint64_t size = f.size_bytes;
    int64_t mtime = f.mtime_unix_s;
    uint32_t nsec = f.mtime_nsec;
    bool was_changed = f.changed;
    verify_one(job, recent[k], vo, buffer);
    f.changed =
        was_changed || f.size_bytes != size || f.mtime_unix_s != mtime || f.mtime_nsec != nsec;
  });
  rc.files = recent.size();
  scan.recent = rc;
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
    where[k] = {f.parent, f.name_at, f.mode == S_IFREG};
    if (f.mode != S_IFREG) mark_not_regular(scan, out, f.mode);
  }
  std::vector<Found>().swap(w.found);
  if (progress) progress->files_total = scan.files.size();
  VerifyJob job{scan, where, w.dir_fds, opts, progress};
  verify_all(job);
  bool quick = !opts.deep && !opts.values;
  if (quick && opts.recent_window_s > 0) deep_check_recent(job);
  return scan;
}

}  // namespace gt
