// Process trees from /proc. A server such as SGLang or vLLM runs a launcher
// (python -m sglang.launch_server) that forks one worker per GPU; NVML lists
// only the workers. Killing a worker makes the launcher respawn it or die
// noisily; the launcher is what must be stopped. We climb from a worker to
// its ancestors while they share its cgroup (the same unit, container or
// session scope) and stop below anything that is the operator's or the
// runtime's: a shell, tmux/screen, sshd, sudo, an init or a container shim.
#include "sources/procfs/process_tree.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "sources/procfs/process_info.h"

namespace gt {
namespace {

constexpr unsigned kPfKthread = 0x00200000;  // PF_KTHREAD in /proc/PID/stat flags

bool is_session_or_runtime(const std::string& comm) {
  // Shells, terminals and session tools; privilege wrappers; inits,
  // container inits and shims; generic supervisors and job runners whose
  // other children are not part of the server (comm is at most 15 chars).
  static const std::array<const char*, 44> kStops = {"bash",
                                                     "sh",
                                                     "dash",
                                                     "zsh",
                                                     "fish",
                                                     "ksh",
                                                     "mksh",
                                                     "tcsh",
                                                     "csh",
                                                     "ash",
                                                     "pwsh",
                                                     "tmux: server",
                                                     "tmux",
                                                     "screen",
                                                     "sshd",
                                                     "sshd-session",
                                                     "sudo",
                                                     "su",
                                                     "runuser",
                                                     "doas",
                                                     "pkexec",
                                                     "setsid",
                                                     "login",
                                                     "systemd",
                                                     "init",
                                                     "containerd-shim",
                                                     "docker-init",
                                                     "tini",
                                                     "dumb-init",
                                                     "catatonit",
                                                     "s6-svscan",
                                                     "s6-supervise",
                                                     "runsv",
                                                     "supervisord",
                                                     "timeout",
                                                     "xargs",
                                                     "make",
                                                     "parallel",
                                                     "jupyter-lab",
                                                     "jupyter-noteboo",
                                                     "jupyter-server",
                                                     "jupyterhub",
                                                     "nohup",
                                                     "env"};
  for (const char* s : kStops)
    if (comm == s) return true;
  return comm.starts_with("containerd-shim") || comm.starts_with("conmon");
}

/// Daemons whose job is to restart what they run: they own the server (and
/// every other program they run), they are not part of it. PM2's daemon is
/// named by its title only (pm2 lib/Daemon.js: process.title = "PM2 v" +
/// version + ": God Daemon (" + PM2_HOME + ")", or PM2_DAEMON_TITLE).
bool is_supervisor_daemon(const ProcInfo& p) {
  const std::string& comm = p.comm;
  return comm == "supervisord" || comm == "runsv" || comm == "s6-supervise" ||
         comm == "s6-svscan" ||
         (p.cmdline.starts_with("PM2 v") && p.cmdline.find(": God Daemon (") != std::string::npos);
}

std::optional<unsigned> parse_leading_uint(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

/// The flags field (9th) of /proc/PID/stat, after the comm's closing paren.
std::optional<unsigned> stat_flags(const std::string& stat) {
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  size_t pos = close + 2;
  for (int field = 3; field < 9 && pos < stat.size(); ++field) {
    pos = stat.find(' ', pos);
    if (pos == std::string::npos) return std::nullopt;
    ++pos;
  }
  return parse_leading_uint(std::string_view(stat).substr(pos));
}

/// Whether `p` is a shell running a script or `-c` command, by its comm or,
/// for a script run by its path (`./serve.sh`: comm "serve.sh"), by argv[0].
bool runs_shell_script(const ProcInfo& p) {
  if (is_script_shell(p)) return true;
  ProcInfo by_argv0 = p;
  const std::string argv0 = p.cmdline.substr(0, p.cmdline.find(' '));
  by_argv0.comm = argv0.substr(argv0.rfind('/') + 1);
  return by_argv0.comm != p.comm && is_script_shell(by_argv0);
}

/// Whether the first ancestor of `p` above its intermediaries is a shell
/// running a script or `-c` command (a loop) in `cgroup`: then `p` runs
/// between that wrapper and the launcher, and is climbed through.
bool under_script_shell(const FsRoot& root, const ProcInfo& p, const std::string& cgroup,
                        const std::set<uint32_t>& protected_pids) {
  uint32_t pid = p.ppid;
  for (int depth = 0; depth < 8 && pid > 1 && !protected_pids.count(pid); ++depth) {
    std::optional<ProcInfo> a = read_proc(root, pid);
    if (!a || a->cgroup != cgroup || a->kernel_thread) return false;
    if (!is_intermediary(*a)) return runs_shell_script(*a);
    pid = a->ppid;
  }
  return false;
}

}  // namespace

bool is_intermediary(const ProcInfo& p) {
  // Programs that run one command and stay its parent (timeout, su, sudo,
  // runuser, doas, setsid when it must fork) or exec it (the others; seen
  // as a parent only while they start it). coreutils, util-linux, sudo.
  static const std::array<const char*, 15> kIntermediaries = {
      "timeout", "su",      "sudo",    "runuser", "doas", "setsid", "nohup", "env",
      "stdbuf",  "numactl", "taskset", "chrt",    "nice", "ionice", "flock"};
  return std::find(kIntermediaries.begin(), kIntermediaries.end(), p.comm) != kIntermediaries.end();
}

std::optional<ProcInfo> read_proc(const FsRoot& root, uint32_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid);
  Result<std::string> stat = root.read(dir + "/stat");
  if (!stat) return std::nullopt;
  std::optional<ProcStat> ps = parse_proc_stat(*stat);
  if (!ps) return std::nullopt;
  ProcInfo p;
  p.pid = pid;
  p.ppid = ps->ppid;
  p.state = ps->state;
  p.start_ticks = ps->start_time_ticks;
  p.pgrp = ps->pgrp;
  p.comm = root.read_optional_trimmed(dir + "/comm").value_or("");
  if (Result<std::string> cmd = root.read(dir + "/cmdline")) {
    std::string c = *cmd;
    while (!c.empty() && c.back() == '\0') c.pop_back();
    for (char& ch : c)
      if (ch == '\0') ch = ' ';
    p.cmdline = c;
  }
  if (Result<std::string> status = root.read(dir + "/status")) {
    size_t at = status->find("\nUid:");
    if (at != std::string::npos)
      p.uid = parse_leading_uint(std::string_view(*status).substr(at + 5));
  }
  p.cgroup = root.read_optional_trimmed(dir + "/cgroup").value_or("");
  std::optional<unsigned> flags = stat_flags(*stat);
  p.kernel_thread = (flags && (*flags & kPfKthread)) || p.ppid == 2 || pid == 2;
  return p;
}

std::set<uint32_t> self_and_ancestors(const FsRoot& root) {
  std::set<uint32_t> out;
  uint32_t pid = static_cast<uint32_t>(::getpid());
  for (int depth = 0; pid > 0 && depth < 1024 && out.insert(pid).second; ++depth) {
    std::optional<ProcInfo> p = read_proc(root, pid);
    if (!p) break;
    pid = p->ppid;
  }
  return out;
}

bool is_script_shell(const ProcInfo& p) {
  static const std::array<const char*, 11> kShells = {"bash", "sh",   "dash", "zsh", "fish", "ksh",
                                                      "mksh", "tcsh", "csh",  "ash", "pwsh"};
  if (std::find(kShells.begin(), kShells.end(), p.comm) == kShells.end()) return false;
  // "-bash" is a login shell; "bash", "bash -i", "bash -l" are interactive.
  // A script path or -c makes it a wrapper.
  if (p.cmdline.empty() || p.cmdline.front() == '-') return false;
  size_t i = p.cmdline.find(' ');
  while (i != std::string::npos) {
    size_t j = p.cmdline.find(' ', i + 1);
    std::string_view w = std::string_view(p.cmdline).substr(
        i + 1, (j == std::string::npos ? p.cmdline.size() : j) - i - 1);
    if (w == "-c" || (!w.empty() && w.front() != '-')) return true;
    if (w == "-i" || w == "-s" || w == "--login" || w == "-l") return false;
    i = j;
  }
  return false;
}

Climb climb_from(const FsRoot& root, uint32_t holder, const std::set<uint32_t>& protected_pids) {
  Climb c;
  std::optional<ProcInfo> h = read_proc(root, holder);
  if (!h) {
    c.end = ClimbEnd::kUnreadable;
    return c;
  }
  c.chain.push_back(*h);
  std::set<uint32_t> seen = {holder};
  for (;;) {
    const ProcInfo& cur = c.chain.back();
    if (cur.ppid <= 1) return c;  // kInit
    if (protected_pids.count(cur.ppid)) {
      c.end = ClimbEnd::kProtected;
      return c;
    }
    if (c.chain.size() >= 64 || !seen.insert(cur.ppid).second) {
      c.end = ClimbEnd::kLimit;
      return c;
    }
    std::optional<ProcInfo> parent = read_proc(root, cur.ppid);
    if (!parent) {
      c.end = ClimbEnd::kUnreadable;
      return c;
    }
    c.boundary = parent;
    if (parent->cgroup != h->cgroup) {
      c.end = ClimbEnd::kCgroup;
      return c;
    }
    if (is_supervisor_daemon(*parent)) {
      c.end = ClimbEnd::kSupervisor;
      return c;
    }
    // An intermediary between a restart loop and the launcher (`while :;
    // do timeout 3600 python -m ...; done`) is part of the loop's stop.
    if (is_intermediary(*parent) && under_script_shell(root, *parent, h->cgroup, protected_pids)) {
      c.chain.push_back(std::move(*parent));
      continue;
    }
    if (parent->kernel_thread ||
        (is_session_or_runtime(parent->comm) && !is_script_shell(*parent))) {
      c.end = ClimbEnd::kSession;
      return c;
    }
    c.boundary.reset();
    c.chain.push_back(std::move(*parent));
  }
}

std::optional<std::string> refusal_reason(const ProcInfo& p, const std::set<uint32_t>& self_tree,
                                          uint32_t my_pid, uint32_t my_euid) {
  if (p.pid <= 1) return "PID 1 (init) is never signalled";
  if (p.pid == my_pid) return "that is gpu-triage itself";
  if (self_tree.count(p.pid)) return "it is an ancestor of gpu-triage (its shell or session)";
  if (p.kernel_thread) return "it is a kernel thread";
  if (my_euid != 0 && (!p.uid || *p.uid != my_euid))
    return "it belongs to uid " + (p.uid ? std::to_string(*p.uid) : std::string("unknown")) +
           "; only root may signal other users' processes";
  return std::nullopt;
}

}  // namespace gt
