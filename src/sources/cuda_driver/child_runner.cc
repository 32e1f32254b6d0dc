#include "sources/cuda_driver/child_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace gt {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxLines = 4096;
constexpr size_t kMaxLineBytes = 4096;
/// How long a killed child may take to be reaped before it is left.
constexpr std::chrono::milliseconds kReapWait{300};

struct Running {
  pid_t pid = -1;
  int fd = -1;
  std::string partial;
  Clock::time_point deadline;
  bool reaped = false;
};

/// The child's environment: ours with `set` replacing same-named entries.
std::vector<std::string> child_env(const std::vector<std::string>& set) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const std::string& s : set) replaced = replaced || s.substr(0, s.find('=')) == name;
    if (!replaced) out.push_back(kv);
  }
  out.insert(out.end(), set.begin(), set.end());
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void start(const ChildJob& job, Running& r, ChildOutcome& o, Clock::time_point t0) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    o.detail = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  std::vector<std::string> args = job.argv, env = child_env(job.env);
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    o.detail = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  r.pid = pid;
  r.fd = fds[0];
  r.deadline = t0 + job.deadline;
}

void take_lines(Running& r, ChildOutcome& o, const char* buf, size_t n) {
  r.partial.append(buf, n);
  size_t nl;
  while ((nl = r.partial.find('\n')) != std::string::npos) {
    if (o.lines.size() < kMaxLines)
      o.lines.push_back(r.partial.substr(0, std::min(nl, kMaxLineBytes)));
    r.partial.erase(0, nl + 1);
  }
  if (r.partial.size() > kMaxLineBytes * 4) r.partial.clear();
}

void finish(Running& r, ChildOutcome& o, int status) {
  r.reaped = true;
  if (o.end == ChildEnd::kKilled) return;
  if (WIFEXITED(status)) {
    o.end = ChildEnd::kExited;
    o.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    o.end = ChildEnd::kSignalled;
    o.signal = WTERMSIG(status);
  }
}

/// Kills `r`; reap_killed() waits for it (for all killed at once).
void kill_now(Running& r, ChildOutcome& o) {
  ::kill(r.pid, SIGKILL);
  o.end = ChildEnd::kKilled;
  o.signal = SIGKILL;
}

/// Waits up to kReapWait, once for all of them, for the killed children to
/// go; one still there is left (asleep in the driver), never waited for.
void reap_killed(std::vector<Running>& run, std::vector<ChildOutcome>& out) {
  const auto until = Clock::now() + kReapWait;
  for (;;) {
    bool left = false;
    for (size_t i = 0; i < run.size(); ++i) {
      if (run[i].reaped || out[i].end != ChildEnd::kKilled) continue;
      int status = 0;
      if (::waitpid(run[i].pid, &status, WNOHANG) == run[i].pid)
        finish(run[i], out[i], status);
      else
        left = true;
    }
    if (!left) return;
    if (Clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (size_t i = 0; i < run.size(); ++i)
    if (!run[i].reaped && out[i].end == ChildEnd::kKilled) out[i].end = ChildEnd::kKilledNoExit;
}

}  // namespace

std::vector<ChildOutcome> run_children(const std::vector<ChildJob>& jobs) {
  const Clock::time_point t0 = Clock::now();
  std::vector<Running> run(jobs.size());
  std::vector<ChildOutcome> out(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    out[i].deadline = jobs[i].deadline;
    start(jobs[i], run[i], out[i], t0);
  }
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    Clock::time_point next = Clock::time_point::max();
    for (size_t i = 0; i < run.size(); ++i) {
      if (run[i].fd < 0) continue;
      fds.push_back({run[i].fd, POLLIN, 0});
      which.push_back(i);
      next = std::min(next, run[i].deadline);
    }
    if (fds.empty()) break;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
    int rc =
        ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, wait.count() + 1)));
    if (rc < 0 && errno != EINTR) break;
    for (size_t k = 0; k < fds.size(); ++k) {
      Running& r = run[which[k]];
      ChildOutcome& o = out[which[k]];
      if (fds[k].revents != 0) {
        char buf[8192];
        ssize_t n = ::read(r.fd, buf, sizeof buf);
        if (n > 0) {
          take_lines(r, o, buf, static_cast<size_t>(n));
          o.last_line_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (!r.partial.empty()) take_lines(r, o, "\n", 1);
        ::close(r.fd);  // EOF: the child is gone (or closed its output)
        r.fd = -1;
        o.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      } else if (Clock::now() >= r.deadline) {
        o.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        ::close(r.fd);
        r.fd = -1;
        kill_now(r, o);
      }
    }
  }
  // Children that closed their output: reaped by their deadline, else killed.
  for (size_t i = 0; i < run.size(); ++i) {
    Running& r = run[i];
    if (r.pid < 0 || r.reaped || out[i].end == ChildEnd::kKilled) continue;
    int status = 0;
    const auto until = std::max(r.deadline, Clock::now());
    for (;;) {
      pid_t w = ::waitpid(r.pid, &status, WNOHANG);
      if (w == r.pid) {
        finish(r, out[i], status);
        break;
      }
      if (w < 0 || Clock::now() >= until) {
        kill_now(r, out[i]);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  reap_killed(run, out);
  return out;
}

}  // namespace gt
