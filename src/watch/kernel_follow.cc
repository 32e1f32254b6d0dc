#include "watch/kernel_follow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sources/kernel_log/kernel_log.h"
#include "util/errno_error.h"

namespace gt {
namespace {

/// Read as the kernel-log reader reads /dev/kmsg (readers.cc): the kind
/// from errno_kind, in the watch's status words.
std::string open_error(int err) {
  switch (errno_kind(err)) {
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kPermissionDenied:
      return "permission denied (run as root or with CAP_SYSLOG)";
    default:
      // The status line names /dev/kmsg already: the bare reason.
      return std::strerror(err);
  }
}

}  // namespace

KernelLogFollower::KernelLogFollower(const std::string& root,
                                     const std::optional<std::string>& file) {
  KernelLog::Source src;
  std::string path;
  if (file) {
    path = *file;
    src.name = *file;
    src.boot = LogBoot::kFile;
  } else {
    path = (root == "/" ? "" : root) + "/dev/kmsg";
    src.name = "/dev/kmsg";
    src.boot = LogBoot::kCurrent;
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    src.error = open_error(errno);
  } else {
    struct stat st {};
    is_kmsg_ = ::fstat(fd_, &st) == 0 && S_ISCHR(st.st_mode);
    src.read = true;
  }
  log_.sources.push_back(src);
}

KernelLogFollower::~KernelLogFollower() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<KernelLogEvent> KernelLogFollower::poll() {
  std::vector<KernelLogEvent> fresh;
  if (fd_ < 0) return fresh;
  if (!is_kmsg_) start_file();
  // The baseline is read whole (it is not news, whatever its size); later
  // polls read at most kMaxReadPerPoll, the rest on the next ticks.
  size_t budget = baseline_read_ ? kMaxReadPerPoll : SIZE_MAX;
  char buf[16384];  // /dev/kmsg returns one record per read; records are < 8 KiB
  while (budget > 0) {
    const ssize_t n = ::read(fd_, buf, std::min(sizeof buf, budget));
    if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;  // EPIPE: kmsg overwrote records
    if (n <= 0) break;  // EOF, EAGAIN or an error: the next tick retries
    budget -= static_cast<size_t>(n);
    pending_.append(buf, static_cast<size_t>(n));
    if (is_kmsg_ && pending_.back() != '\n') pending_ += '\n';
    if (pending_.size() >= 1 << 20) take_lines(fresh);  // parse as we go: memory stays small
  }
  take_lines(fresh);
  if (pending_.size() > kMaxPendingBytes) pending_.clear();  // no newline in sight: not a log
  log_.events = folder_.events();
  baseline_read_ = true;
  return fresh;
}

void KernelLogFollower::start_file() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return;
  const off_t at = ::lseek(fd_, 0, SEEK_CUR);
  if (at > st.st_size) {  // truncated or replaced in place (logrotate copytruncate)
    ::lseek(fd_, 0, SEEK_SET);
    pending_.clear();
  } else if (!baseline_read_ && st.st_size > static_cast<off_t>(kMaxBaselineBytes)) {
    // A long saved log: its last kMaxBaselineBytes are the baseline (the
    // first line read may be a tail; it is parsed as what it is).
    ::lseek(fd_, st.st_size - static_cast<off_t>(kMaxBaselineBytes), SEEK_SET);
  }
}

void KernelLogFollower::take_lines(std::vector<KernelLogEvent>& fresh) {
  const size_t end = pending_.rfind('\n');
  if (end == std::string::npos) return;
  parse(std::string_view(pending_).substr(0, end + 1), fresh);
  pending_.erase(0, end + 1);
}

void KernelLogFollower::parse(std::string_view text, std::vector<KernelLogEvent>& fresh) {
  ParsedKernelLog parsed = parse_kernel_log_text(text, log_.sources[0].boot);
  log_.sources[0].lines += parsed.lines;
  log_.unparsed_nvidia_lines += parsed.unparsed_nvidia_lines;
  for (KernelLogEvent& e : parsed.events) {
    auto [index, is_new] = folder_.add(std::move(e));
    if (is_new && baseline_read_) fresh.push_back(folder_.events()[index]);
  }
}

}  // namespace gt
