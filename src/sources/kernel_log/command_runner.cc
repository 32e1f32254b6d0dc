// RealCommandRunner: fork/exec through posix_spawnp with a hard timeout.
//
// The child gets stdin from /dev/null, stdout and stderr on two pipes, its
// own process group (so the timeout can SIGKILL it and anything it started)
// and default signal dispositions with nothing blocked. The parent polls both
// pipes and checks for the child's exit at least every 50 ms, so a child that
// exits while a grandchild still holds the pipes open is noticed: the pipes
// then get a 100 ms grace, after which what is left of the group is killed.
// glibc's posix_spawnp reports exec failures (no such program) as its return
// value, which becomes spawn_error. A child killed at the timeout normally
// dies at once; one stuck in uninterruptible sleep (a hung GPU driver call)
// cannot, so after a 1 s wait it is left to a detached thread that reaps it
// whenever it dies: run() never blocks past the timeout by more than that.
#include "sources/kernel_log/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "util/errno_error.h"

extern char** environ;  // NOLINT: POSIX

namespace gt {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kExitGrace{100};  // pipes held by a grandchild
constexpr milliseconds kReapWait{1000};  // after SIGKILL

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

struct Pipes {
  int out_r = -1, out_w = -1, err_r = -1, err_w = -1;
  ~Pipes() {
    close_fd(out_r);
    close_fd(out_w);
    close_fd(err_r);
    close_fd(err_w);
  }
  bool open() {
    int a[2], b[2];
    if (::pipe2(a, O_CLOEXEC) != 0) return false;
    if (::pipe2(b, O_CLOEXEC) != 0) {
      ::close(a[0]);
      ::close(a[1]);
      return false;
    }
    out_r = a[0], out_w = a[1], err_r = b[0], err_w = b[1];
    return true;
  }
};

// Starts argv in a new process group; returns 0 or an errno value.
int spawn(const std::vector<std::string>& argv, const Pipes& p, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, p.out_w, 1);
  posix_spawn_file_actions_adddup2(&fa, p.err_w, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = ::posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

// Reads what is available on fd into buf (up to the cap); closes fd at EOF.
void drain(int& fd, std::string& buf) {
  char tmp[65536];
  ssize_t n = ::read(fd, tmp, sizeof tmp);
  if (n > 0) {
    size_t room = kCommandOutputCap - std::min(buf.size(), kCommandOutputCap);
    buf.append(tmp, std::min(room, static_cast<size_t>(n)));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    close_fd(fd);
  }
}

// True once the child has exited (or was reaped elsewhere: SIGCHLD ignored).
bool check_exit(pid_t pid, int& status) {
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  if (r == pid) return true;
  if (r < 0 && errno == ECHILD) {
    status = -1;
    return true;
  }
  return false;
}

// Kills the group and reaps the child, leaving a thread to reap it if it
// does not die within kReapWait.
void kill_and_reap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  const Clock::time_point until = Clock::now() + kReapWait;
  int status = 0;
  while (Clock::now() < until) {
    if (check_exit(pid, status)) return;
    ::poll(nullptr, 0, 5);
  }
  std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
}

// Pumps both pipes until the child exits and they close, or the deadline.
// Returns true when the child exited (status set).
bool pump(pid_t pid, Pipes& p, Clock::time_point deadline, CommandResult& r, int& status) {
  bool exited = false;
  for (;;) {
    if (!exited && check_exit(pid, status)) {
      exited = true;
      deadline = std::min(deadline, Clock::now() + kExitGrace);
    }
    if (exited && p.out_r < 0 && p.err_r < 0) return true;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return exited;
    auto left = std::chrono::duration_cast<milliseconds>(deadline - now).count() + 1;
    pollfd fds[2];
    nfds_t n = 0;
    if (p.out_r >= 0) fds[n++] = {p.out_r, POLLIN, 0};
    if (p.err_r >= 0) fds[n++] = {p.err_r, POLLIN, 0};
    int wait_ms = static_cast<int>(std::min<int64_t>(left, n == 0 ? 5 : 50));
    if (::poll(n ? fds : nullptr, n, wait_ms) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == p.out_r)
        drain(p.out_r, r.out);
      else
        drain(p.err_r, r.err);
    }
  }
}

}  // namespace

CommandResult RealCommandRunner::run(const std::vector<std::string>& argv,
                                     milliseconds timeout) const {
  CommandResult r;
  const std::string name = argv.empty() ? std::string("(empty)") : argv[0];
  Pipes p;
  if (argv.empty() || !p.open()) {
    const int err = errno;  // before the message is built
    r.spawn_error = argv.empty() ? "cannot run " + name + ": no program"
                                 : errno_error(err, "cannot run " + name).message;
    return r;
  }
  const Clock::time_point deadline = Clock::now() + timeout;
  pid_t pid = -1;
  if (int rc = spawn(argv, p, pid); rc != 0) {
    r.spawn_error = errno_error(rc, "cannot run " + name).message;
    return r;
  }
  close_fd(p.out_w);
  close_fd(p.err_w);
  int status = 0;
  if (!pump(pid, p, deadline, r, status)) {
    r.timed_out = true;
    kill_and_reap(pid);
    return r;
  }
  if (p.out_r >= 0 || p.err_r >= 0) ::kill(-pid, SIGKILL);  // leftovers hold the pipes
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace gt
