// Reading the kernel log: /dev/kmsg, journalctl for the previous boot,
// /var/log/kern.log(.1), or one --kernel-log file (kernel_log.h says what
// each source gives). Each source's text goes through parse_text with a hook
// that settles the line's boot and wall time before it is folded, so a storm
// folds per boot and a kern.log spanning a reboot is split first.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include "sources/kernel_log/cancellation.h"
#include "sources/kernel_log/compressed.h"
#include "sources/kernel_log/kernel_log.h"
#include "sources/kernel_log/line_format.h"
#include "sources/kernel_log/not_a_log.h"
#include "sources/kernel_log/nvrm_events.h"
#include "sources/kernel_log/storm.h"
#include "util/errno_error.h"
#include "util/text.h"

namespace gt {
namespace {

using klog::kNpos;
using klog::string_view;
using klog::trim;
constexpr size_t kReadCap = 256u << 20;  // bytes of one log file we parse

using Source = KernelLog::Source;

struct Text {
  std::string data;
  std::optional<std::string> error;
};

// Reads fd to EOF (or EAGAIN for a non-blocking /dev/kmsg; EPIPE there means
// records were overwritten while reading: go on with the next one).
Text read_fd(int fd, const std::string& path) {
  Text t;
  std::string buf(64 * 1024, '\0');
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      t.data.append(buf.data(), static_cast<size_t>(n));
      if (t.data.size() >= kReadCap) break;
      continue;
    }
    if (n == 0 || errno == EAGAIN) break;
    if (errno == EINTR || errno == EPIPE) continue;
    const int err = errno;  // before the message is built
    t.error = errno_error(err, "cannot read " + path).message;
    break;
  }
  return t;
}

// Compressed text (gzip, xz, zstd by its magic bytes) inflated, keeping its
// last kReadCap bytes; other text as it is.
Text inflated(Text t, const std::string& name) {
  const klog::Compression c = klog::compression_of(t.data);
  if (t.error || c == klog::Compression::kNone) return t;
  klog::Inflated in = klog::inflate_log(t.data, c, name, kReadCap);
  return Text{std::move(in.data), std::move(in.error)};
}

// A whole file, or its last kReadCap bytes from a line start; a compressed
// one is read whole (up to kReadCap) and inflated.
Text read_file(const std::string& path) {
  // O_NONBLOCK: a FIFO's open does not wait for a writer (it is refused).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;  // before the message is built
    return Text{{}, errno_error(err, "cannot open " + path).message};
  }
  struct stat kind {};
  if (::fstat(fd, &kind) == 0) {
    if (std::optional<std::string> why = not_a_kernel_log(kind)) {
      ::close(fd);
      return Text{{}, "cannot read " + path + ": " + *why + ", not a log"};
    }
  }
  char head[8] = {};
  const ssize_t got = ::pread(fd, head, sizeof head, 0);
  const bool compressed =
      got > 0 && klog::compression_of(std::string_view(head, static_cast<size_t>(got))) !=
                     klog::Compression::kNone;
  struct stat sb {};
  const bool big =
      ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && static_cast<uint64_t>(sb.st_size) > kReadCap;
  if (compressed && big) {
    ::close(fd);
    return Text{{},
                "cannot read " + path + ": a compressed log over " +
                    std::to_string(kReadCap >> 20) +
                    " MiB (inflate the part to check and pass that)"};
  }
  if (big) ::lseek(fd, sb.st_size - static_cast<off_t>(kReadCap), SEEK_SET);
  Text t = read_fd(fd, path);
  ::close(fd);
  if (big) t.data.erase(0, std::min(t.data.size(), t.data.find('\n') + 1));
  return compressed ? inflated(std::move(t), path) : t;
}

Text read_kmsg(const FsRoot& root) {
  Result<std::string> resolved = root.resolve("/dev/kmsg");
  if (!resolved) return Text{{}, resolved.error().message};
  const std::string path = *resolved;
  root.note_opened("/dev/kmsg");  // read here, not through the root
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const Error e = errno_error(err, "cannot open " + path);
    if (e.kind == ErrorKind::kNotFound) return Text{{}, "not found"};
    if (e.kind == ErrorKind::kPermissionDenied)
      return Text{{}, "permission denied (run as root or with CAP_SYSLOG)"};
    return Text{{}, e.message};
  }
  // SEEK_SET: the oldest record still buffered (SEEK_DATA would skip those
  // before the last "dmesg -c"). Fails harmlessly on odd files.
  ::lseek(fd, 0, SEEK_SET);
  Text t = read_fd(fd, path);
  ::close(fd);
  return t;
}

std::optional<int64_t> read_btime(const FsRoot& root) {
  Result<std::string> stat = root.read("/proc/stat");
  if (!stat) return std::nullopt;
  const std::string text = "\n" + *stat;
  size_t at = text.find("\nbtime ");
  if (at == std::string::npos) return std::nullopt;
  size_t start = at + 7, end = text.find('\n', start);
  std::optional<int64_t> btime =
      klog::to_num<int64_t>(trim(string_view(text).substr(start, end - start)));
  if (!btime || *btime < 0 || *btime > klog::kMaxUnixS) return std::nullopt;  // no sum can overflow
  return btime;
}

// Monotonic seconds of the first record in kmsg text.
std::optional<double> first_kmsg_mono(string_view text) {
  auto k = klog::parse_kmsg_header(text.substr(0, text.find('\n')));
  if (!k) return std::nullopt;
  return klog::plausible_uptime(static_cast<double>(k->usec) / 1e6);
}

Source make_source(std::string name, LogBoot boot) {
  Source s;
  s.name = std::move(name);
  s.boot = boot;
  return s;
}

// Records the parse of `text` in `src`; returns its events. With
// `need_log_form`, a text none of whose lines has a kernel log's form is not
// read (its lack of Xid lines says nothing).
std::vector<KernelLogEvent> take(const Text& text, LogBoot boot, Source& src, KernelLog& log,
                                 const klog::EventHook& hook = {}, bool need_log_form = false) {
  if (text.error) {
    src.error = text.error;
    return {};
  }
  ParsedKernelLog parsed = klog::parse_text(text.data, boot, hook);
  src.lines = parsed.lines;
  if (need_log_form && !parsed.log_form_seen) {
    const std::string which = parsed.lines == 1
                                  ? "its one line does not have"
                                  : "none of its " + std::to_string(parsed.lines) + " lines has";
    src.error = parsed.lines == 0 ? "empty: no line to check"
                                  : "not a kernel log: " + which +
                                        " the form of one (dmesg, journalctl, syslog, /dev/kmsg; "
                                        "gzip, xz and zstd are inflated)";
    return {};
  }
  src.read = true;
  log.unparsed_nvidia_lines += parsed.unparsed_nvidia_lines;
  return std::move(parsed.events);
}

std::vector<KernelLogEvent> read_journal(const KernelLogOptions& o, KernelLog& log) {
  static const RealCommandRunner kReal;
  const CommandRunner& runner = o.runner ? *o.runner : kReal;
  Source src = make_source("journalctl -k -b -1", LogBoot::kPrevious);
  CommandResult r = runner.run(
      {"journalctl", "-k", "-b", "-1", "-o", "short-iso", "--no-pager", "-q"}, o.command_timeout);
  if (r.absent) return {};  // a tree that does not stand in for the journal says nothing
  Text text;
  if (r.spawn_error) {
    text.error = r.spawn_error;
  } else if (r.timed_out) {
    text.error = "timed out after " + std::to_string(o.command_timeout.count()) + " ms";
  } else if (r.exit_code != 0) {
    std::string line = first_line(r.err);
    text.error = line.empty() ? "exit code " + std::to_string(r.exit_code) : line;
  } else {
    text.data = std::move(r.out);
  }
  std::vector<KernelLogEvent> events = take(text, LogBoot::kPrevious, src, log);
  log.sources.push_back(std::move(src));
  return events;
}

std::string dedupe_key(const KernelLogEvent& e) {
  return event_kind_name(e.kind) + std::string("|") + std::to_string(e.code.value_or(-1)) + '|' +
         e.pci_bus_id.value_or("") + '/' + std::to_string(e.gpu_instance_id.value_or(~0u)) + '|' +
         std::to_string(e.pid.value_or(0)) + '|' + e.detail;
}

// Drops from `events` those that repeat one of `seen` within 5 s.
void drop_repeats(std::vector<KernelLogEvent>& events, const std::vector<KernelLogEvent>& seen) {
  std::multimap<std::string, std::optional<int64_t>> index;
  for (const KernelLogEvent& e : seen) index.emplace(dedupe_key(e), e.time_unix_s);
  std::erase_if(events, [&](const KernelLogEvent& e) {
    auto [lo, hi] = index.equal_range(dedupe_key(e));
    for (auto it = lo; it != hi; ++it) {
      if (!it->second || !e.time_unix_s || std::llabs(*it->second - *e.time_unix_s) <= 5)
        return true;
    }
    return false;
  });
}

struct KmsgState {
  bool read = false;
  std::optional<int64_t> oldest_unix;  // wall time of the oldest kmsg record
};

// Sets the boot of a kern.log event; false when it is to be dropped.
bool classify(KernelLogEvent& e, std::optional<int64_t> btime, const KmsgState& kmsg) {
  if (!btime || !e.time_unix_s) {
    e.boot = LogBoot::kCurrent;
    return !kmsg.read;
  }
  if (*e.time_unix_s < *btime) {
    e.boot = LogBoot::kPrevious;
    return true;
  }
  e.boot = LogBoot::kCurrent;
  return !kmsg.read || (kmsg.oldest_unix && *e.time_unix_s < *kmsg.oldest_unix - 1);
}

void read_kern_logs(const FsRoot& root, std::optional<int64_t> btime, const KmsgState& kmsg,
                    KernelLog& log, std::vector<KernelLogEvent>& previous,
                    std::vector<KernelLogEvent>& current) {
  for (const char* name : {"/var/log/kern.log.1", "/var/log/kern.log"}) {
    // Resolved in the root: a link in a fixture tree or a gathered copy
    // never reads this machine's log.
    Result<struct stat> sb = root.stat(name);
    if (!sb && sb.error().kind == ErrorKind::kNotFound) continue;
    Result<std::string> host = root.resolve(name);
    if (host) root.note_opened(name);  // read here, not through the root
    Source src = make_source(name, LogBoot::kPrevious);
    auto hook = [&](KernelLogEvent& e) { return classify(e, btime, kmsg); };
    Text text = host ? read_file(*host) : Text{{}, host.error().message};
    for (KernelLogEvent& e : take(std::move(text), LogBoot::kPrevious, src, log, hook))
      (e.boot == LogBoot::kPrevious ? previous : current).push_back(std::move(e));
    log.sources.push_back(std::move(src));
  }
}

void sort_if_all_timed(std::vector<KernelLogEvent>& events) {
  if (std::all_of(events.begin(), events.end(), [](auto& e) { return e.time_unix_s.has_value(); }))
    std::stable_sort(events.begin(), events.end(),
                     [](auto& a, auto& b) { return *a.time_unix_s < *b.time_unix_s; });
}

KernelLog read_file_option(const std::string& file) {
  KernelLog log;
  Source src = make_source(file == "-" ? "stdin" : file, LogBoot::kFile);
  Text text = file == "-" ? inflated(read_fd(0, "stdin"), "stdin") : read_file(file);
  log.events = take(text, LogBoot::kFile, src, log, {}, true);
  log.sources.push_back(std::move(src));
  return log;
}

}  // namespace

KernelLog read_kernel_log(const FsRoot& root, const KernelLogOptions& options) {
  if (options.file) return read_file_option(*options.file);
  KernelLog log;
  const std::optional<int64_t> btime = read_btime(root);
  Source ksrc = make_source("/dev/kmsg", LogBoot::kCurrent);
  Text ktext = read_kmsg(root);
  auto wall_time = [&](KernelLogEvent& e) {
    if (btime && e.monotonic_s) e.time_unix_s = *btime + std::llround(*e.monotonic_s);
    return true;
  };
  std::vector<KernelLogEvent> kmsg_events = take(ktext, LogBoot::kCurrent, ksrc, log, wall_time);
  KmsgState kmsg{ksrc.read, std::nullopt};
  if (auto mono = first_kmsg_mono(ktext.data); mono && btime)
    kmsg.oldest_unix = *btime + static_cast<int64_t>(*mono);
  log.sources.push_back(std::move(ksrc));

  std::vector<KernelLogEvent> previous, current;
  // A tree's journal only through its own runner (a bundle's recording);
  // never this machine's journal for another node's tree.
  if (root.root() == "/" || root.root().empty() || options.runner)
    previous = read_journal(options, log);
  std::vector<KernelLogEvent> kern_previous;
  read_kern_logs(root, btime, kmsg, log, kern_previous, current);
  drop_repeats(kern_previous, previous);
  previous.insert(previous.end(), kern_previous.begin(), kern_previous.end());
  current.insert(current.end(), kmsg_events.begin(), kmsg_events.end());
  sort_if_all_timed(previous);
  sort_if_all_timed(current);
  // Sources of one boot may each hold part of a storm: one event per key.
  previous = klog::fold_events(std::move(previous));
  current = klog::fold_events(std::move(current));
  klog::mark_cancellations(previous);
  klog::mark_cancellations(current);
  log.events = std::move(previous);
  log.events.insert(log.events.end(), current.begin(), current.end());
  return log;
}

}  // namespace gt
