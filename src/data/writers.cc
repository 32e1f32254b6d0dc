#include "data/writers.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>

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

/// A kernel thread (kthreadd, PID 2, or one of its children, /proc/PID/stat
/// field 4): it opens no file of DIR.
bool kernel_thread(const FsRoot& root, const std::string& pid) {
  if (pid == "2") return true;
  Result<std::string> stat = root.read("/proc/" + pid + "/stat");
  if (!stat) return false;
  const size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 4 >= stat->size()) return false;
  return std::strtoul(stat->c_str() + close + 4, nullptr, 10) == 2;
}

/// Counts a process whose descriptors could not be listed (not one that
/// exited meanwhile).
void note_unseen(const FsRoot& root, const std::string& pid, const Error& e,
                 UnseenWriters* unseen) {
  if (!unseen || e.kind == ErrorKind::kNotFound || kernel_thread(root, pid)) return;
  if (unseen->pids.size() < 5) unseen->pids.push_back(std::atoi(pid.c_str()));
  ++unseen->count;
}

}  // namespace

std::string unseen_writers_words(const UnseenWriters& unseen) {
  if (unseen.count == 0) return "";
  std::string pids;
  for (int p : unseen.pids) pids += (pids.empty() ? "" : ", ") + std::to_string(p);
  return "the open files of " + std::to_string(unseen.count) + " process" +
         (unseen.count == 1 ? "" : "es") + " of other users could not be checked (pid " + pids +
         (unseen.count > unseen.pids.size() ? ", ..." : "") +
         ": their /proc/PID/fd is not readable; run as root to see them), so a writer of "
         "these files cannot be ruled out";
}

std::vector<Writer> find_writers(const FsRoot& root, const std::vector<std::string>& abs_dirs,
                                 size_t limit, UnseenWriters* unseen) {
  std::vector<Writer> out;
  Result<std::vector<std::string>> procs = root.list("/proc");
  if (!procs) return out;
  // This process inherits its shell's descriptors (`exec 3>file`) but
  // writes nothing: it is never a writer.
  const std::string self = std::to_string(::getpid());
  for (const std::string& pid : *procs) {
    if (!is_pid(pid) || pid == self) continue;
    std::string base = "/proc/" + pid;
    Result<std::vector<std::string>> fds = root.list(base + "/fd");
    if (!fds) {
      note_unseen(root, pid, fds.error(), unseen);
      continue;
    }
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

size_t mark_being_written(DirScan& scan, const std::vector<Writer>& writers) {
  if (writers.empty()) return 0;
  std::map<std::string, const Writer*> by_path;
  for (const Writer& w : writers) by_path.emplace(w.path, &w);
  std::vector<std::optional<std::string>> real_dirs;
  for (const std::string& d : scan.dirs) real_dirs.push_back(real_path(d));
  size_t marked = 0;
  for (ScannedFile& f : scan.files) {
    const std::optional<std::string>& dir = real_dirs[f.dir_index];
    if (!dir) continue;
    auto w = by_path.find(*dir + (dir->ends_with("/") ? "" : "/") + f.rel);
    if (w == by_path.end()) continue;
    f.verdict = FileVerdict::kBeingWritten;
    f.message = scan.texts.intern(writer_name(*w->second));
    f.extra.reset();
    ++marked;
  }
  return marked;
}

std::vector<Writer> writers_under(const FsRoot& root, const std::vector<std::string>& dirs,
                                  UnseenWriters* unseen) {
  const std::vector<std::string> resolved = real_paths(dirs);
  if (resolved.empty()) return {};  // nothing under them can be open
  return find_writers(root, resolved, SIZE_MAX, unseen);
}

std::vector<std::string> writer_lines(const std::vector<Writer>& writers, size_t limit) {
  std::vector<std::string> out;
  for (size_t i = 0; i < writers.size() && i < limit; ++i) out.push_back(writer_line(writers[i]));
  return out;
}

std::vector<std::string> writer_lines(const FsRoot& root, const std::vector<std::string>& dirs,
                                      size_t limit) {
  return writer_lines(writers_under(root, dirs), limit);
}

}  // namespace gt
