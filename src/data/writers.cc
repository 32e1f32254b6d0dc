#include "data/writers.h"

#include <fcntl.h>

#include <cctype>
#include <cstdlib>

#include "util/real_path.h"

namespace gt {
namespace {

bool is_pid(const std::string& name) {
  return !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
}

bool under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         (path[dir.size()] == '/' || dir == "/");
}

// The octal `flags:` of an fdinfo file opens the file for writing.
bool open_for_writing(const std::string& fdinfo) {
  size_t at = fdinfo.find("flags:");
  if (at == std::string::npos) return false;
  unsigned long flags = std::strtoul(fdinfo.c_str() + at + 6, nullptr, 8);
  return (flags & O_ACCMODE) == O_WRONLY || (flags & O_ACCMODE) == O_RDWR;
}

}  // namespace

std::vector<Writer> find_writers(const FsRoot& root, const std::vector<std::string>& abs_dirs,
                                 size_t limit) {
  std::vector<Writer> out;
  Result<std::vector<std::string>> procs = root.list("/proc");
  if (!procs) return out;
  for (const std::string& pid : *procs) {
    if (!is_pid(pid)) continue;
    std::string base = "/proc/" + pid;
    Result<std::vector<std::string>> fds = root.list(base + "/fd");
    if (!fds) continue;
    for (const std::string& fd : *fds) {
      std::optional<std::string> target = root.read_link(base + "/fd/" + fd);
      if (!target || target->empty() || target->front() != '/') continue;
      bool inside = false;
      for (const std::string& d : abs_dirs) inside = inside || under(*target, d);
      if (!inside) continue;
      Result<std::string> info = root.read(base + "/fdinfo/" + fd);
      if (!info || !open_for_writing(*info)) continue;
      out.push_back({std::atoi(pid.c_str()),
                     root.read_optional_trimmed(base + "/comm").value_or(""), *target});
      if (out.size() == limit) return out;
    }
  }
  return out;
}

std::string writer_name(const Writer& w) {
  return "pid " + std::to_string(w.pid) + (w.comm.empty() ? "" : " (" + w.comm + ")");
}

std::string writer_line(const Writer& w) {
  return writer_name(w) + " has " + w.path + " open for writing";
}

std::vector<std::string> writer_lines(const FsRoot& root, const std::vector<std::string>& dirs,
                                      size_t limit) {
  std::vector<std::string> out;
  const std::vector<std::string> resolved = real_paths(dirs);
  if (resolved.empty()) return out;  // nothing under them can be open
  for (const Writer& w : find_writers(root, resolved, limit)) out.push_back(writer_line(w));
  return out;
}

}  // namespace gt
