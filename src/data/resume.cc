#include "data/resume.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

#include "util/errno_error.h"
#include "util/real_path.h"

namespace gt {
namespace {

Status make_dirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // std::filesystem reports errno's values in the system category.
  if (ec) return errno_error(ec.value(), "creating " + dir);
  return ok_status();
}

std::string real_or_parent(std::string p) {
  std::string suffix;
  while (!p.empty()) {
    if (std::optional<std::string> r = real_path(p)) return *r + suffix;
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

Status write_resume_list(const std::string& path, const std::vector<KeyRun>& runs) {
  uint64_t n = run_keys(runs);
  if (n > kMaxSamples)
    return Error{ErrorKind::kUnsupported, "--resume-list " + path + ": " + std::to_string(n) +
                                              " samples to redo is over the limit of " +
                                              std::to_string(kMaxSamples) +
                                              "; not written (narrow it with --range)"};
  AtomicFile f(path);
  std::string buf;
  Status status = ok_status();
  for_each_key(runs, n, [&](const SampleKey& k) {
    if (!status) return;
    (buf += k.text()) += '\n';
    if (buf.size() >= (1 << 20)) {
      status = f.write(buf);
      buf.clear();
    }
  });
  if (!status) return status;
  if (Status s = f.write(buf); !s) return s;
  return f.commit();
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
    return errno_error(errno, "moving " + path + " to " + candidate);
  }
  return Error{ErrorKind::kIo, "moving " + path + ": 1000 names taken under " + dest};
}

namespace {

// The nearest existing ancestor of `path` (itself when it exists).
std::string nearest_existing(const std::string& path) {
  std::string p = real_or_parent(path);
  struct stat st;
  while (p.size() > 1 && ::stat(p.c_str(), &st) != 0)
    p = p.substr(0, std::max<size_t>(1, p.rfind('/')));
  return p;
}

}  // namespace

Status check_move_target(const std::string& dest, const std::vector<std::string>& dirs) {
  // strerror below, not errno_error: whatever errno says, an unusable
  // --move-bad-to is refused as bad usage (kMalformed), the caller's kind.
  auto refuse = [&](const std::string& why) {
    return Error{ErrorKind::kMalformed, "--move-bad-to " + dest + ": " + why};
  };
  std::string existing = nearest_existing(dest);
  struct stat st;
  if (::stat(existing.c_str(), &st) != 0) return refuse(std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return refuse(existing + " is not a directory");
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    return refuse(
        (existing == real_or_parent(dest) ? "cannot write into " : "cannot create under ") +
        existing + ": " + std::strerror(errno));
  for (const std::string& d : dirs) {
    if (path_is_within(dest, d) || path_is_within(d, dest))
      return refuse("must be outside " + d + " (pipelines list DIR recursively)");
    struct stat ds;
    if (::stat(d.c_str(), &ds) == 0 && ds.st_dev != st.st_dev)
      return refuse("is on another filesystem than " + d +
                    " (bad files are renamed, never copied and deleted): pick a folder on the same "
                    "filesystem, outside DIR");
  }
  return ok_status();
}

bool path_is_within(const std::string& inner, const std::string& outer) {
  std::string a = real_or_parent(inner), b = real_or_parent(outer);
  if (b.size() > 1 && b.back() == '/') b.pop_back();
  return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 &&
                    (a[b.size()] == '/' || b == "/"));
}

}  // namespace gt
