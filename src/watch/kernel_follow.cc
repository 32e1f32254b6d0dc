#include "watch/kernel_follow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sources/kernel_log/kernel_log.h"
#include "sources/kernel_log/not_a_log.h"
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

std::optional<std::string> refuse_kernel_log_file(const std::string& path) {
  const std::string what =
      "watch follows /dev/kmsg (1:11) or a regular file (a saved dmesg, "
      "kern.log, syslog)";
  if (path == "-") return "standard input cannot be followed by name: " + what;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // the follower says why, and waits
  if (std::optional<std::string> why = not_a_kernel_log(st)) return *why + ", not a log: " + what;
  return std::nullopt;
}

KernelLogFollower::KernelLogFollower(const std::string& root,
                                     const std::optional<std::string>& file) {
  KernelLog::Source src;
  if (file) {
    path_ = *file;
    src.name = *file;
    src.boot = LogBoot::kFile;
  } else {
    path_ = (root == "/" ? "" : root) + "/dev/kmsg";
    src.name = "/dev/kmsg";
    src.boot = LogBoot::kCurrent;
  }
  log_.sources.push_back(src);
  open_log(true);
}

KernelLogFollower::~KernelLogFollower() { close_log(); }

void KernelLogFollower::close_log() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void KernelLogFollower::open_log(bool at_start) {
  KernelLog::Source& src = log_.sources[0];
  // Looked at before it is opened: opening a device can act (a tty, a
  // watchdog); only what passes is opened, and checked again once open.
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    src.error = open_error(errno);
    return;
  }
  std::optional<std::string> why = not_a_kernel_log(st);
  const int fd = why ? -1 : ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (!why && fd < 0) {
    src.error = open_error(errno);
    return;
  }
  if (!why && ::fstat(fd, &st) == 0) why = not_a_kernel_log(st);
  if (why) {
    if (fd >= 0) ::close(fd);
    src.error = "not a log: " + *why;
    return;
  }
  fd_ = fd;
  is_kmsg_ = S_ISCHR(st.st_mode);
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  src.read = true;
  src.error.reset();
  if (at_start && !is_kmsg_ && st.st_size > static_cast<off_t>(kMaxBaselineBytes)) {
    // A long saved log: its last kMaxBaselineBytes are the baseline (the
    // first line read may be a tail; it is parsed as what it is).
    ::lseek(fd_, st.st_size - static_cast<off_t>(kMaxBaselineBytes), SEEK_SET);
  }
}

std::vector<KernelLogEvent> KernelLogFollower::poll() {
  std::vector<KernelLogEvent> fresh;
  // The baseline is not news, but it is bounded too: at most
  // kMaxBaselineBytes, later polls kMaxReadPerPoll (the rest next tick).
  size_t budget = baseline_read_ ? kMaxReadPerPoll : kMaxBaselineBytes;
  if (!is_kmsg_) follow_name(budget, fresh);
  if (fd_ >= 0) read_available(budget, fresh);
  log_.events = folder_.events();
  baseline_read_ = true;
  return fresh;
}

std::vector<std::string> KernelLogFollower::take_notes() {
  std::vector<std::string> out;
  out.swap(notes_);
  return out;
}

void KernelLogFollower::follow_name(size_t& budget, std::vector<KernelLogEvent>& fresh) {
  if (fd_ < 0) {  // not there (yet), or not readable: tried again each tick
    open_log(!baseline_read_);
    if (fd_ >= 0 && baseline_read_) notes_.push_back(path_ + " appeared: following it");
    return;
  }
  struct stat named {};
  // Renamed away and no new file yet: the old one may still be written to.
  if (::stat(path_.c_str(), &named) != 0) return;
  if (named.st_dev == dev_ && named.st_ino == ino_) {
    if (::lseek(fd_, 0, SEEK_CUR) > named.st_size) {  // truncated (logrotate copytruncate)
      ::lseek(fd_, 0, SEEK_SET);
      pending_.clear();
      notes_.push_back(path_ + " truncated, read again from its start");
    }
    return;
  }
  // Another file at the name (rotated by rename): the rest of the old one
  // first, then the new one from its start.
  read_available(budget, fresh);
  if (budget == 0) return;  // more of the old one: the next tick
  if (!pending_.empty()) {  // its last line had no newline: it never will
    pending_ += '\n';
    take_lines(fresh);
  }
  close_log();
  open_log(false);
  notes_.push_back(fd_ >= 0
                       ? path_ + " rotated, reopened"
                       : path_ + " rotated; the new file: " + log_.sources[0].error.value_or("?"));
}

void KernelLogFollower::read_available(size_t& budget, std::vector<KernelLogEvent>& fresh) {
  char buf[16384];  // /dev/kmsg returns one record per read; records are < 8 KiB
  int retries = 0;
  while (budget > 0) {
    const ssize_t n = ::read(fd_, buf, std::min(sizeof buf, budget));
    // EPIPE: kmsg overwrote records. Both are rare: a few retries at most.
    if (n < 0 && (errno == EINTR || errno == EPIPE) && ++retries <= 64) continue;
    if (n <= 0) break;  // EOF, EAGAIN or an error: the next tick retries
    budget -= static_cast<size_t>(n);
    pending_.append(buf, static_cast<size_t>(n));
    if (is_kmsg_ && pending_.back() != '\n') pending_ += '\n';
    if (pending_.size() >= 1 << 20) take_lines(fresh);  // parse as we go: memory stays small
  }
  take_lines(fresh);
}

void KernelLogFollower::take_lines(std::vector<KernelLogEvent>& fresh) {
  const size_t end = pending_.rfind('\n');
  if (end != std::string::npos) {
    parse(std::string_view(pending_).substr(0, end + 1), fresh);
    pending_.erase(0, end + 1);
  }
  // What is left has no newline: past kMaxPendingBytes it is not a log line.
  if (pending_.size() > kMaxPendingBytes) pending_.clear();
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
