#include "data/resume.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gt {
namespace {

Error sys_error(const std::string& what) {
  return Error{errno == EACCES ? ErrorKind::kPermissionDenied : ErrorKind::kIo,
               what + ": " + std::strerror(errno)};
}

Status make_dirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{ErrorKind::kIo, "creating " + dir + ": " + ec.message()};
  return ok_status();
}

std::string real_or_parent(std::string p) {
  std::string suffix;
  while (!p.empty()) {
    if (char* r = realpath(p.c_str(), nullptr)) {
      std::string out = std::string(r) + suffix;
      free(r);
      return out;
    }
    size_t s = p.find_last_of('/');
    if (s == std::string::npos) {
      suffix = "/" + p + suffix;
      p = ".";
      continue;
    }
    suffix = p.substr(s) + suffix;
    p = s == 0 ? "/" : p.substr(0, s);
  }
  return suffix;
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::string& text) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string tmpl = dir + "/." + base + ".tmpXXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return sys_error("creating a temporary file in " + dir);
  fchmod(fd, 0644);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e = sys_error("writing " + tmpl);
      ::close(fd);
      ::unlink(tmpl.c_str());
      return e;
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Error e = sys_error("flushing " + tmpl);
    ::unlink(tmpl.c_str());
    return e;
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    Error e = sys_error("renaming " + tmpl + " to " + path);
    ::unlink(tmpl.c_str());
    return e;
  }
  return ok_status();
}

Status write_resume_list(const std::string& path, const std::vector<SampleKey>& keys) {
  std::string text;
  for (const SampleKey& k : keys) text += k.text() + "\n";
  return write_file_atomically(path, text);
}

Result<std::string> move_out(const std::string& path, const std::string& rel,
                             const std::string& dest) {
  std::string target = dest + "/" + rel;
  size_t slash = target.rfind('/');
  if (Status s = make_dirs(target.substr(0, slash)); !s) return s.error();
  for (int n = 0; n < 1000; ++n) {
    std::string candidate = n == 0 ? target : target + "." + std::to_string(n);
    // renameat2(RENAME_NOREPLACE): atomic, and never overwrites.
    if (renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, candidate.c_str(), RENAME_NOREPLACE) == 0)
      return candidate;
    if (errno == EEXIST) continue;
    if (errno == EXDEV)
      return Error{ErrorKind::kUnsupported, "moving " + path + " to " + candidate +
                                                ": --move-bad-to must be on the same filesystem "
                                                "(files are renamed, never copied and deleted)"};
    return sys_error("moving " + path + " to " + candidate);
  }
  return Error{ErrorKind::kIo, "moving " + path + ": 1000 names taken under " + dest};
}

bool path_is_within(const std::string& inner, const std::string& outer) {
  std::string a = real_or_parent(inner), b = real_or_parent(outer);
  if (b.size() > 1 && b.back() == '/') b.pop_back();
  return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 &&
                    (a[b.size()] == '/' || b == "/"));
}

}  // namespace gt
