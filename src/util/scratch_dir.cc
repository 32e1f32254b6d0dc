#include "util/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "util/errno_error.h"

namespace gt {
namespace {

constexpr int kScratchSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kScratchSignalCount = sizeof kScratchSignals / sizeof kScratchSignals[0];
/// Deeper than this the handler leaves the rest (each level costs it a
/// frame of its stack; a bundle's tree is a dozen levels deep).
constexpr int kScratchMaxDepth = 256;

// The guarded folder, written before `g_scratch_armed` is set and read by the
// handler only after taking it back: no lock a signal could interrupt.
char g_scratch_path[PATH_MAX];
std::atomic<bool> g_scratch_armed{false};
std::atomic<bool> g_scratch_in_use{false};
struct sigaction g_scratch_before[kScratchSignalCount];
bool g_scratch_installed[kScratchSignalCount];

/// Removes everything under the open folder `dir`, async-signal-safe. A
/// pass that removes nothing ends it (what cannot be removed stays).
void scratch_remove_below(int dir, int depth) {
  if (depth > kScratchMaxDepth) return;
  alignas(8) char buf[1024];
  for (bool removed = true; removed;) {
    removed = false;
    if (::lseek(dir, 0, SEEK_SET) != 0) return;
    for (ssize_t n; (n = ::getdents64(dir, buf, sizeof buf)) > 0;) {
      for (ssize_t off = 0; off < n;) {
        const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
        off += d->d_reclen;
        const char* name = d->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        if (::unlinkat(dir, name, 0) == 0) {
          removed = true;
          continue;
        }
        const int sub = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        scratch_remove_below(sub, depth + 1);
        ::close(sub);
        if (::unlinkat(dir, name, AT_REMOVEDIR) == 0) removed = true;
      }
    }
  }
}

void scratch_remove_tree(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  scratch_remove_below(fd, 0);
  ::close(fd);
  ::rmdir(path);
}

int scratch_signal_index(int sig) {
  for (int i = 0; i < kScratchSignalCount; ++i)
    if (kScratchSignals[i] == sig) return i;
  return -1;
}

void on_scratch_signal(int sig) {
  const int saved_errno = errno;
  if (g_scratch_armed.exchange(false)) scratch_remove_tree(g_scratch_path);
  // The signal's own course: the disposition found before ours, raised
  // again (blocked until this handler returns).
  const int i = scratch_signal_index(sig);
  if (i >= 0) ::sigaction(sig, &g_scratch_before[i], nullptr);
  ::raise(sig);
  errno = saved_errno;
}

/// Installs the handler for each signal not ignored (a signal the process
/// ignores, as nohup ignores SIGHUP, ends nothing).
void install_scratch_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_scratch_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < kScratchSignalCount; ++i) {
    g_scratch_installed[i] = false;
    if (::sigaction(kScratchSignals[i], nullptr, &g_scratch_before[i]) != 0) continue;
    if (g_scratch_before[i].sa_handler == SIG_IGN) continue;
    g_scratch_installed[i] = ::sigaction(kScratchSignals[i], &sa, nullptr) == 0;
  }
}

void uninstall_scratch_handlers() {
  for (int i = 0; i < kScratchSignalCount; ++i)
    if (g_scratch_installed[i]) ::sigaction(kScratchSignals[i], &g_scratch_before[i], nullptr);
}

}  // namespace

Result<std::unique_ptr<ScratchDir>> ScratchDir::make(const std::string& prefix) {
  std::error_code ec;
  std::string dir = std::filesystem::temp_directory_path(ec).string();
  if (ec || dir.empty()) dir = "/tmp";
  std::string path = dir + "/" + prefix + ".XXXXXX";
  if (::mkdtemp(path.data()) == nullptr)
    return errno_error(errno, "cannot make a scratch folder in " + dir);
  return std::unique_ptr<ScratchDir>(new ScratchDir(std::move(path)));
}

ScratchDir::ScratchDir(std::string path) : path_(std::move(path)) {
  if (path_.size() >= sizeof g_scratch_path || g_scratch_in_use.exchange(true)) return;
  std::memcpy(g_scratch_path, path_.c_str(), path_.size() + 1);
  install_scratch_handlers();
  g_scratch_armed = true;
  guarded_ = true;
}

ScratchDir::~ScratchDir() {
  if (guarded_) g_scratch_armed = false;  // from now on a signal leaves it to this
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (!guarded_) return;
  uninstall_scratch_handlers();
  g_scratch_in_use = false;
}

}  // namespace gt
