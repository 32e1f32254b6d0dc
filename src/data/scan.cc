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

// Recursive walk with openat + fstatat: no path re-resolution per file.
void walk(int dirfd, const std::string& root, const std::string& rel, size_t dir_index,
          DirScan& out) {
  DIR* d = fdopendir(dirfd);
  if (d == nullptr) {
    out.errors.push_back(root + "/" + rel + ": " + std::strerror(errno));
    ::close(dirfd);
    return;
  }
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    std::string child = rel.empty() ? e->d_name : rel + "/" + e->d_name;
    // d_type saves a stat per file: size and mtime come from the fstat of
    // the opened file during verification.
    struct stat st {};
    if (e->d_type == DT_REG)
      st.st_mode = S_IFREG;
    else if (e->d_type == DT_DIR)
      st.st_mode = S_IFDIR;
    else if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out.errors.push_back(root + "/" + child + ": " + std::strerror(errno));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sub < 0)
        out.errors.push_back(root + "/" + child + ": " + std::strerror(errno));
      else
        walk(sub, root, child, dir_index, out);
    } else if (S_ISREG(st.st_mode)) {
      ScannedFile f;
      f.path = root == "." ? child : (root.ends_with("/") ? root + child : root + "/" + child);
      f.rel = std::move(child);
      f.dir_index = dir_index;
      f.size_bytes = static_cast<uint64_t>(st.st_size);
      f.mtime_unix_s = st.st_mtim.tv_sec;
      out.files.push_back(std::move(f));
    }
  }
  closedir(d);
}

void verify_all(DirScan& scan, const ScanOptions& opts, ScanProgress* progress) {
  unsigned n = opts.threads ? opts.threads
                            : std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  n = std::max(1u, std::min<unsigned>(n, scan.files.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::vector<uint8_t> buffer;
    VerifyOptions vo{opts.deep};
    for (size_t i = next++; i < scan.files.size(); i = next++) {
      ScannedFile& f = scan.files[i];
      std::unique_ptr<Hasher> hasher = opts.hash ? Hasher::make(*opts.hash) : nullptr;
      std::vector<StreamConsumer*> extra;
      if (hasher) extra.push_back(hasher.get());
      f.check = verify_path(f.path, vo, buffer, extra);
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
  DirScan scan;
  for (size_t i = 0; i < opts.dirs.size(); ++i) {
    const std::string& dir = opts.dirs[i];
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return Error{errno == ENOENT ? ErrorKind::kNotFound : ErrorKind::kIo,
                   "cannot open directory " + dir + ": " + std::strerror(errno)};
    walk(fd, dir, "", i, scan);
  }
  std::sort(scan.files.begin(), scan.files.end(), [](const ScannedFile& a, const ScannedFile& b) {
    return a.dir_index != b.dir_index ? a.dir_index < b.dir_index : a.rel < b.rel;
  });
  if (progress) progress->files_total = scan.files.size();
  verify_all(scan, opts, progress);
  return scan;
}

}  // namespace gt
