// /proc/PID is a view of one process in the reader's PID namespace. NVML
// reports host-namespace PIDs, so inside a container without --pid=host the
// directory is simply absent (ecosystem.md section 7); that is reported as
// "not visible", never as "no such process".
//
// Files we read and their quirks:
// - stat: "pid (comm) state ppid ... starttime ..."; comm is at most 15 bytes
//   but may hold spaces and ')' (a process can name itself "a) (b"), so it
//   runs from the first '(' to the LAST ')'. starttime (field 22) is in clock
//   ticks since boot; /proc/stat's "btime" line is boot time in Unix seconds.
// - comm: the same name, newline-terminated.
// - cmdline: argv as NUL-separated strings with a trailing NUL; empty for
//   kernel threads and zombies. Processes that rewrite argv (setproctitle)
//   may leave runs of NULs or spaces; we join NULs with single spaces.
// - status: "Key:\tvalue" lines; "Uid:" holds real, effective, saved and fs
//   uids; "NSpid:" (kernel >= 4.1) lists the PID in each namespace from the
//   reader's outward-in view down to the innermost; "Cpus_allowed_list:"
//   the CPUs it may run on ("0-31,64-95", its main thread's affinity).
// - cgroup: see cgroup_owner.cc.
// A process can exit between any two reads. Its files then fail with ENOENT
// or ESRCH (FsRoot maps both to NotFound), and we drop what we read so far
// rather than mix a dead process's fields with nulls. Under hidepid=1 other
// users' files fail with EACCES: that field alone stays null.
#include "sources/procfs/process_info.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "sources/procfs/cgroup_owner.h"
#include "util/numeric.h"

namespace gt {
namespace {

using Fields = std::vector<std::string_view>;

// Splits on spaces and tabs, dropping empty pieces.
Fields split_ws(std::string_view s) {
  Fields out;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = s.find_first_not_of(" \t\n", i);
    if (start == std::string_view::npos) break;
    size_t end = s.find_first_of(" \t\n", start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    i = end;
  }
  return out;
}

// Splits on `sep`, keeping empty pieces (passwd has empty fields).
Fields split_keep(std::string_view s, char sep) {
  Fields out;
  for (size_t at; (at = s.find(sep)) != std::string_view::npos;) {
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  out.push_back(s);
  return out;
}

template <typename T>
std::optional<T> parse_uint(std::string_view s) {
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return value;
}

// The whitespace-separated values after "<key>:" in status-like text, or
// nullopt when no such line exists.
std::optional<Fields> key_values(std::string_view text, std::string_view key) {
  for (std::string_view line : split_keep(text, '\n')) {
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ':') {
      return split_ws(line.substr(key.size() + 1));
    }
  }
  return std::nullopt;
}

// Reads files of one /proc/PID, remembering whether the process vanished.
class ProcDir {
 public:
  ProcDir(const FsRoot& root, uint32_t pid)
      : root_(root), dir_("/proc/" + std::to_string(pid) + "/") {}

  /// The file's text; nullopt on any failure (NotFound also marks gone()).
  std::optional<std::string> read(const char* name) {
    Result<std::string> r = root_.read(dir_ + name);
    if (r) return std::move(r.value());
    if (r.error().kind == ErrorKind::kNotFound) gone_ = true;
    return std::nullopt;
  }
  bool gone() const { return gone_; }

 private:
  const FsRoot& root_;
  std::string dir_;
  bool gone_ = false;
};

std::optional<std::string> join_cmdline(std::string cmdline) {
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.pop_back();
  if (cmdline.empty()) return std::nullopt;
  std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
  return cmdline;
}

std::optional<std::string> trim_newline(std::optional<std::string> s) {
  if (s && !s->empty() && s->back() == '\n') s->pop_back();
  return s;
}

// The login name for `uid` in <root>/etc/passwd ("name:x:uid:gid:...").
std::optional<std::string> lookup_user(const FsRoot& root, uint32_t uid) {
  Result<std::string> passwd = root.read("/etc/passwd");
  if (!passwd) return std::nullopt;
  for (std::string_view line : split_keep(*passwd, '\n')) {
    Fields f = split_keep(line, ':');
    if (f.size() >= 3 && !f[0].empty() && parse_uint<uint32_t>(f[2]) == uid) {
      return std::string(f[0]);
    }
  }
  return std::nullopt;
}

// "btime 1700000000" in <root>/proc/stat: boot time in Unix seconds.
std::optional<int64_t> boot_time_unix_s(const FsRoot& root) {
  Result<std::string> stat = root.read("/proc/stat");
  if (!stat) return std::nullopt;
  for (std::string_view line : split_keep(*stat, '\n')) {
    Fields f = split_ws(line);
    // Range-checked here: callers add process ages to it.
    if (f.size() == 2 && f[0] == "btime") return plausible_unix_s(parse_uint<int64_t>(f[1]));
  }
  return std::nullopt;
}

void fill_from_stat(const FsRoot& root, const std::string& text, GpuProcess& p) {
  std::optional<ProcStat> stat = parse_proc_stat(text);
  if (!stat) return;
  p.ppid = stat->ppid;
  p.start_time_unix_s = start_unix_s(boot_time_unix_s(root), stat->start_time_ticks);
}

void fill_from_status(const std::string& text, GpuProcess& p) {
  std::optional<Fields> uids = key_values(text, "Uid");
  if (uids && !uids->empty()) p.uid = parse_uint<uint32_t>(uids->front());
  std::optional<Fields> cpus = key_values(text, "Cpus_allowed_list");
  if (cpus && cpus->size() == 1) p.cpus_allowed = parse_cpu_list(cpus->front());
  std::optional<Fields> nspid = key_values(text, "NSpid");
  if (!nspid || nspid->empty()) return;
  std::vector<uint32_t> levels;
  for (std::string_view v : *nspid) {
    std::optional<uint32_t> pid = parse_uint<uint32_t>(v);
    if (!pid) return;
    levels.push_back(*pid);
  }
  p.nspid = std::move(levels);
}

void clear_proc_fields(GpuProcess& p) {
  p.name.reset();
  p.cmdline.reset();
  p.uid.reset();
  p.user.reset();
  p.start_time_unix_s.reset();
  p.ppid.reset();
  p.nspid.reset();
  p.cpus_allowed.reset();
  p.owner.reset();
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      open == 0 || text[open - 1] != ' ') {
    return std::nullopt;
  }
  if (!parse_uint<uint32_t>(text.substr(0, open - 1))) return std::nullopt;
  // After the comm: field 3 (state) is fields[0], field N is fields[N - 3].
  Fields fields = split_ws(text.substr(close + 1));
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  std::optional<uint32_t> ppid = parse_uint<uint32_t>(fields[1]);
  std::optional<uint64_t> start = parse_uint<uint64_t>(fields[19]);
  if (!ppid || !start) return std::nullopt;
  return ProcStat{fields[0][0], *ppid, *start, parse_uint<uint32_t>(fields[2])};
}

void fill_process_details(const FsRoot& root, GpuProcess& p) {
  const std::string n = std::to_string(p.pid);
  clear_proc_fields(p);
  p.visible = root.exists("/proc/" + n);
  if (!p.visible) {
    p.visibility_note = "PID " + n +
                        " is not visible in this PID namespace (NVML reports "
                        "host PIDs; run on the host or with --pid=host)";
    return;
  }
  p.visibility_note.reset();
  ProcDir dir(root, p.pid);
  if (auto stat = dir.read("stat")) fill_from_stat(root, *stat, p);
  p.name = trim_newline(dir.read("comm"));
  if (auto cmdline = dir.read("cmdline")) p.cmdline = join_cmdline(*cmdline);
  if (auto status = dir.read("status")) fill_from_status(*status, p);
  if (p.uid) p.user = lookup_user(root, *p.uid);
  if (auto cgroup = dir.read("cgroup")) p.owner = parse_cgroup_owner(*cgroup);
  if (dir.gone()) {
    clear_proc_fields(p);
    p.visible = false;
    p.visibility_note = "process " + n + " exited while being read";
  }
}

std::optional<int64_t> read_boot_time_unix_s(const FsRoot& root) { return boot_time_unix_s(root); }

std::optional<int64_t> start_unix_s(std::optional<int64_t> btime, uint64_t start_ticks) {
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (!plausible_unix_s(btime) || ticks_per_s <= 0) return std::nullopt;
  // Both at most kMaxUnixS before the sum, so it cannot overflow.
  const uint64_t since_boot_s = start_ticks / static_cast<uint64_t>(ticks_per_s);
  if (since_boot_s > static_cast<uint64_t>(kMaxUnixS)) return std::nullopt;
  return plausible_unix_s(*btime + static_cast<int64_t>(since_boot_s));
}

}  // namespace gt
