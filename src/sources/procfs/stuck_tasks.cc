// The scan for tasks stuck in the NVIDIA driver (stuck_tasks.h has the rule).
// One stat read per process; the threads of a multi-threaded one only when
// it has more than one (a wedged NVML caller is often one thread of python).
#include "sources/procfs/stuck_tasks.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "util/numeric.h"

namespace gt {
namespace {

/// The first `max` bytes of a /proc file, or nullopt when it cannot be
/// opened or read (absent, permission denied, the task exited). Never the
/// whole of a file that could be large: a stack is 64 frames at most, but
/// the bound is ours, not the kernel's.
std::optional<std::string> read_head(const FsRoot& root, const std::string& abs_path, size_t max) {
  Result<int> opened = root.open(abs_path, O_RDONLY | O_NONBLOCK);
  if (!opened) return std::nullopt;
  const int fd = *opened;
  std::string out;
  char buf[4096];
  while (out.size() < max) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, max - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

bool nvidia_module(std::string_view name) {
  return name == "nvidia" || name.starts_with("nvidia_") || name.starts_with("nvidia-");
}

/// A /proc/PID or /proc/PID/task/TID directory in state D.
struct DTask {
  uint32_t pid = 0;
  std::optional<uint32_t> tid;
  std::string dir;
  std::string stat_comm;
};

/// Whether `t` is in nvidia code; fills wchan and the frame that says so.
std::optional<StuckTask> examine(const FsRoot& root, const DTask& t, bool module_loaded,
                                 size_t max_bytes) {
  StuckTask s;
  s.pid = t.pid;
  s.tid = t.tid;
  if (std::optional<std::string> w = read_head(root, t.dir + "/wchan", max_bytes)) {
    std::string sym = trimmed(*w);
    // "0": not sleeping, or not ours to see (ptrace access is checked).
    if (!sym.empty() && sym != "0") s.wchan = sym;
  }
  std::optional<std::string> stack = read_head(root, t.dir + "/stack", max_bytes);
  if (stack && stack->find_first_not_of(" \n") != std::string::npos) {
    s.nvidia_frame = nvidia_stack_frame(*stack);
    if (!s.nvidia_frame) return std::nullopt;  // the stack is the better witness
  } else if (!(s.wchan && module_loaded && nvidia_wchan(*s.wchan))) {
    return std::nullopt;
  }
  std::optional<std::string> comm =
      root.read_optional_trimmed("/proc/" + std::to_string(t.pid) + "/comm");
  s.comm = comm ? *comm : t.stat_comm;
  return s;  // sleeping_s stays null: /proc says nothing of time spent in D
}

/// Walks /proc, appending the D tasks; false when the task budget ran out.
bool collect_d_tasks(const FsRoot& root, const std::vector<std::string>& entries,
                     const StuckTaskLimits& lim, std::vector<DTask>& out, size_t& reads) {
  auto read_stat = [&](const std::string& dir) -> std::optional<TaskStat> {
    ++reads;
    std::optional<std::string> text = read_head(root, dir + "/stat", lim.max_file_bytes);
    return text ? parse_task_stat(*text) : std::nullopt;
  };
  for (const std::string& e : entries) {
    std::optional<uint32_t> pid = parse_int<uint32_t>(e);
    if (!pid) continue;
    if (reads >= lim.max_tasks) return false;
    const std::string dir = "/proc/" + e;
    std::optional<TaskStat> st = read_stat(dir);
    if (!st) continue;  // exited meanwhile
    if (st->num_threads.value_or(1) <= 1) {
      if (st->state == 'D') out.push_back({*pid, std::nullopt, dir, st->comm});
      continue;
    }
    Result<std::vector<std::string>> tids = root.list(dir + "/task");
    if (!tids) {
      if (st->state == 'D') out.push_back({*pid, std::nullopt, dir, st->comm});
      continue;
    }
    for (const std::string& t : *tids) {
      std::optional<uint32_t> tid = parse_int<uint32_t>(t);
      if (!tid) continue;
      if (reads >= lim.max_tasks) return false;
      const std::string tdir = dir + "/task/" + t;
      std::optional<TaskStat> ts = read_stat(tdir);
      if (!ts || ts->state != 'D') continue;
      if (*tid == *pid)
        out.push_back({*pid, std::nullopt, dir, ts->comm});  // the leader: /proc/PID's files
      else
        out.push_back({*pid, tid, tdir, ts->comm});
    }
  }
  return true;
}

}  // namespace

std::optional<TaskStat> parse_task_stat(std::string_view text) {
  // "PID (COMM) STATE PPID ...": COMM is anything up to the LAST ')'.
  size_t open = text.find(" (");
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open + 2)
    return std::nullopt;
  TaskStat s;
  std::optional<uint32_t> pid = parse_int<uint32_t>(text.substr(0, open));
  if (!pid || close + 2 >= text.size() || text[close + 1] != ' ') return std::nullopt;
  s.pid = *pid;
  s.comm = std::string(text.substr(open + 2, close - open - 2));
  s.state = text[close + 2];
  // Fields after ")": state is field 3, num_threads field 20 (proc(5)).
  std::string_view rest = text.substr(close + 2);
  for (int field = 3; field <= 20 && !rest.empty(); ++field) {
    size_t sp = rest.find(' ');
    std::string_view tok = rest.substr(0, sp);
    if (field == 20) s.num_threads = parse_int<uint32_t>(tok);
    if (sp == std::string_view::npos) break;
    rest.remove_prefix(sp + 1);
  }
  return s;
}

std::optional<std::string> nvidia_stack_frame(std::string_view stack) {
  while (!stack.empty()) {
    size_t nl = stack.find('\n');
    std::string_view line = stack.substr(0, nl);
    stack.remove_prefix(nl == std::string_view::npos ? stack.size() : nl + 1);
    if (line.starts_with("[<")) {  // "[<0>] " or "[<ffffffffc0a1b2c3>] "
      size_t end = line.find(">] ");
      if (end == std::string_view::npos) continue;
      line.remove_prefix(end + 3);
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    size_t tag = line.rfind(" [");
    if (tag == std::string_view::npos || !line.ends_with(']')) continue;
    if (nvidia_module(line.substr(tag + 2, line.size() - tag - 3))) return std::string(line);
  }
  return std::nullopt;
}

bool nvidia_wchan(std::string_view s) {
  static constexpr std::array<std::string_view, 6> kPrefixes = {
      "nvidia_", "nv_", "nvkms_", "uvm_", "os_acquire_", "os_delay"};
  for (std::string_view p : kPrefixes)
    if (s.starts_with(p) && s.size() > p.size()) return true;
  // The closed driver's obfuscated symbols: "_nv000123rm".
  return s.size() > 3 && s.starts_with("_nv") && s[3] >= '0' && s[3] <= '9';
}

std::optional<std::vector<StuckTask>> read_stuck_nvidia_tasks(const FsRoot& root,
                                                              std::vector<std::string>* warnings,
                                                              const StuckTaskLimits& limits) {
  Result<std::vector<std::string>> entries = root.list("/proc");
  if (!entries) return std::nullopt;
  std::vector<DTask> d_tasks;
  size_t reads = 0;
  bool complete = collect_d_tasks(root, *entries, limits, d_tasks, reads);
  if (!complete && warnings)
    warnings->push_back("stuck-task scan stopped after " + std::to_string(reads) +
                        " tasks (its limit): tasks stuck in the driver may be missing");
  if (d_tasks.size() > limits.max_d_tasks && warnings)
    warnings->push_back(std::to_string(d_tasks.size()) + " tasks in state D; only the first " +
                        std::to_string(limits.max_d_tasks) + " were examined");
  const bool module_loaded = root.exists("/sys/module/nvidia");
  std::vector<StuckTask> out;
  for (size_t i = 0; i < d_tasks.size() && i < limits.max_d_tasks; ++i)
    if (std::optional<StuckTask> s =
            examine(root, d_tasks[i], module_loaded, limits.max_file_bytes))
      out.push_back(std::move(*s));
  std::sort(out.begin(), out.end(), [](const StuckTask& a, const StuckTask& b) {
    return std::pair(a.pid, a.tid.value_or(0)) < std::pair(b.pid, b.tid.value_or(0));
  });
  return out;
}

std::optional<std::vector<StuckTask>> persisting_tasks(
    const std::optional<std::vector<StuckTask>>& earlier,
    const std::optional<std::vector<StuckTask>>& later) {
  if (!earlier || !later) return std::nullopt;
  std::vector<StuckTask> out;
  for (const StuckTask& t : *later)
    for (const StuckTask& e : *earlier)
      if (e.pid == t.pid && e.tid == t.tid) {
        out.push_back(t);
        break;
      }
  return out;
}

}  // namespace gt
