#include "data/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "data/verify.h"

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
};

// Directory fds kept open for openat; past this many, files are opened by path.
constexpr size_t kMaxHeldDirs = 512;

struct Walk {
  std::vector<Found> found;
  std::vector<int> dir_fds;  // -1: not held, open by path
  std::vector<std::string> errors;
  ~Walk() {
    for (int fd : dir_fds)
      if (fd >= 0) ::close(fd);
  }
};

// Recursive walk with openat + fstatat: no path re-resolution per file.
void walk(int dirfd, const std::string& root, const std::string& rel, uint32_t dir_index,
          Walk& out) {
  DIR* d = fdopendir(dirfd);
  if (d == nullptr) {
    out.errors.push_back(root + "/" + rel + ": " + std::strerror(errno));
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
    else if (e->d_type == DT_DIR)
      st.st_mode = S_IFDIR;
    else if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out.errors.push_back(root + "/" + (rel.empty() ? e->d_name : rel + "/" + e->d_name) + ": " +
                           std::strerror(errno));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      std::string child = rel.empty() ? e->d_name : rel + "/" + e->d_name;
      int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sub < 0)
        out.errors.push_back(root + "/" + child + ": " + std::strerror(errno));
      else
        walk(sub, root, child, dir_index, out);
    } else if (S_ISREG(st.st_mode)) {
      if (!held && out.dir_fds.size() <= kMaxHeldDirs) {
        out.dir_fds[parent] = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
        held = true;
      }
      Found& f = out.found.emplace_back();
      f.rel.reserve(rel.size() + 1 + std::strlen(e->d_name));
      if (!rel.empty()) (f.rel += rel) += '/';
      f.name_at = static_cast<uint32_t>(f.rel.size());
      f.rel += e->d_name;
      f.dir_index = dir_index;
      f.parent = parent;
      f.size_bytes = static_cast<uint64_t>(st.st_size);
      f.mtime_unix_s = st.st_mtim.tv_sec;
    }
  }
  closedir(d);
}

void verify_all(DirScan& scan, const std::vector<Found>& found, const std::vector<int>& dir_fds,
                const ScanOptions& opts, ScanProgress* progress) {
  unsigned n = opts.threads ? opts.threads
                            : std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  n = std::max(1u, std::min<unsigned>(n, scan.files.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::vector<uint8_t> buffer;
    VerifyOptions vo{opts.deep};
    for (size_t i = next++; i < scan.files.size(); i = next++) {
      ScannedFile& f = scan.files[i];
      const Found& where = found[i];
      std::unique_ptr<Hasher> hasher = opts.hash ? Hasher::make(*opts.hash) : nullptr;
      std::vector<StreamConsumer*> extra;
      if (hasher) extra.push_back(hasher.get());
      int dfd = dir_fds[where.parent];
      f.check = dfd >= 0 ? verify_at(dfd, f.rel.c_str() + where.name_at, f.path, vo, buffer, extra)
                         : verify_path(f.path, vo, buffer, extra);
      if (f.check.size_bytes) f.size_bytes = *f.check.size_bytes;
      if (f.check.mtime_unix_s) f.mtime_unix_s = *f.check.mtime_unix_s;
      if (hasher && !f.check.io_error) f.digest = hasher->hex();
      if (progress) {
        progress->files_done++;
        progress->bytes_done += f.size_bytes;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace

Result<DirScan> scan_dirs(const ScanOptions& opts, ScanProgress* progress) {
  Walk w;
  for (size_t i = 0; i < opts.dirs.size(); ++i) {
    const std::string& dir = opts.dirs[i];
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return Error{errno == ENOENT ? ErrorKind::kNotFound : ErrorKind::kIo,
                   "cannot open directory " + dir + ": " + std::strerror(errno)};
    walk(fd, dir, "", static_cast<uint32_t>(i), w);
  }
  // Sort the small records, then build each ScannedFile once, in place.
  std::sort(w.found.begin(), w.found.end(), [](const Found& a, const Found& b) {
    return a.dir_index != b.dir_index ? a.dir_index < b.dir_index : a.rel < b.rel;
  });
  DirScan scan;
  scan.errors = std::move(w.errors);
  scan.files.resize(w.found.size());
  for (size_t k = 0; k < w.found.size(); ++k) {
    const Found& f = w.found[k];
    ScannedFile& out = scan.files[k];
    const std::string& root = opts.dirs[f.dir_index];
    if (root == ".") {
      out.path = f.rel;
    } else {
      bool slash = root.ends_with("/");
      out.path.reserve(root.size() + !slash + f.rel.size());
      out.path += root;
      if (!slash) out.path += '/';
      out.path += f.rel;
    }
    out.rel = f.rel;
    out.dir_index = f.dir_index;
    out.size_bytes = f.size_bytes;
    out.mtime_unix_s = f.mtime_unix_s;
  }
  if (progress) progress->files_total = scan.files.size();
  verify_all(scan, w.found, w.dir_fds, opts, progress);
  return scan;
}

}  // namespace gt
