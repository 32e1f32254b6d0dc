#include "sources/cuda/compat_library.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/cuda/library_version.h"

namespace gt {
namespace {

constexpr size_t kCompareChunkBytes = 1 << 20;

std::string compat_dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

/// Reads up to `n` bytes, retrying short reads; nullopt on an error.
std::optional<size_t> compat_read_full(int fd, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return std::nullopt;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

/// Whether two open files have the same size and bytes (at most
/// kMaxLibraryScanBytes: a larger file is not a libcuda).
bool compat_same_bytes(int a, int b) {
  struct stat sa {
  }, sb{};
  if (::fstat(a, &sa) != 0 || ::fstat(b, &sb) != 0 || sa.st_size != sb.st_size ||
      static_cast<uint64_t>(sa.st_size) > kMaxLibraryScanBytes)
    return false;
  std::string ba(kCompareChunkBytes, '\0'), bb(kCompareChunkBytes, '\0');
  for (;;) {
    const std::optional<size_t> na = compat_read_full(a, ba.data(), ba.size());
    const std::optional<size_t> nb = compat_read_full(b, bb.data(), bb.size());
    if (!na || !nb || *na != *nb) return false;
    if (*na == 0) return true;
    if (ba.compare(0, *na, bb, 0, *nb) != 0) return false;
  }
}

bool compat_same_file(const FsRoot& root, const std::string& x, const std::string& y) {
  Result<int> a = root.open(x, O_RDONLY | O_CLOEXEC);
  if (!a) return false;
  Result<int> b = root.open(y, O_RDONLY | O_CLOEXEC);
  const bool same = b && compat_same_bytes(*a, *b);
  ::close(*a);
  if (b) ::close(*b);
  return same;
}

/// The libcuda files of one compat directory, links followed inside the root.
void compat_list_dir(const FsRoot& root, const std::string& dir, std::vector<std::string>& out) {
  Result<std::vector<std::string>> names = root.list(dir);
  if (!names) return;
  for (const std::string& n : *names) {
    if (!n.starts_with("libcuda.so")) continue;
    Result<struct stat> st = root.stat(dir + "/" + n);
    if (st && S_ISREG(st->st_mode) && root.read_link(dir + "/" + n) == std::nullopt)
      out.push_back(dir + "/" + n);
  }
}

}  // namespace

bool in_compat_dir(const std::string& path) {
  const std::string dir = compat_dir_of(path);
  return dir.ends_with("/compat") || dir.find("/compat/") != std::string::npos;
}

CompatSigns read_compat_signs(const FsRoot& root) {
  CompatSigns s;
  if (Result<std::string> text = root.read("/proc/self/mountinfo")) {
    for (MountEntry& m : parse_mountinfo(*text))
      if (in_compat_dir(m.root) && m.root.find("libcuda.so") != std::string::npos)
        s.compat_mounts.push_back(std::move(m));
  }
  if (Result<std::vector<std::string>> local = root.list("/usr/local")) {
    for (const std::string& n : *local)
      if (n.starts_with("cuda"))
        compat_list_dir(root, "/usr/local/" + n + "/compat", s.compat_files);
  }
  return s;
}

std::optional<CompatOrigin> compat_origin(const FsRoot& root, const CompatSigns& signs,
                                          const std::string& found_at, const std::string& file) {
  for (const std::string& p : {found_at, file})
    if (in_compat_dir(p))  // the file itself when it is there: the link's name has no release
      return CompatOrigin{"in the compat directory " + compat_dir_of(p),
                          in_compat_dir(file) ? file : p};
  for (const MountEntry& m : signs.compat_mounts) {
    if (m.mount_point == found_at || m.mount_point == file)
      return CompatOrigin{"a bind mount of " + m.root + " (/proc/self/mountinfo: " + m.source +
                              " on " + m.mount_point + ")",
                          m.root};
  }
  auto [at, fresh] = signs.compared.try_emplace(file);
  if (fresh)
    for (const std::string& c : signs.compat_files)
      if (compat_same_file(root, file, c)) {
        at->second = c;
        break;
      }
  if (at->second.empty()) return std::nullopt;
  return CompatOrigin{"the same file (size and bytes) as " + at->second, at->second};
}

}  // namespace gt
