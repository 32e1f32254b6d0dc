// watch's kernel-log follower over a file that changes while it is
// followed: the input's first half (to a line end) is the file when watch
// starts; the rest is appended line by line, polled every few KiB, and a
// line starting with a control byte is an operation on the file instead:
//   \x01 poll now          \x02 rotate by rename (kern.log -> kern.log.1, a
//   \x03 truncate to zero        new empty kern.log)
//   \x04 remove the file   \x05 the line written in two halves, a poll
//                                between (a record split across writes)
// Checked: every event a poll returns is in the folded log, which only
// grows; the source is one; notes are one line each.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "tree_target.h"
#include "watch/kernel_follow.h"

namespace {

constexpr size_t kPollEveryBytes = 4096;

void write_to(const std::string& path, std::string_view bytes, bool append) {
  std::ofstream(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc))
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void poll_and_check(gt::KernelLogFollower& f, size_t& events_before) {
  for (const gt::KernelLogEvent& e : f.poll()) {
    bool found = false;
    for (const gt::KernelLogEvent& k : f.log().events)
      found |= k.code == e.code && k.kind == e.kind;
    if (!found) std::abort();  // a new event not in the folded log
  }
  if (f.log().sources.size() != 1 || f.log().events.size() < events_before) std::abort();
  events_before = f.log().events.size();
  for (const std::string& n : f.take_notes())
    if (n.empty() || n.find('\n') != std::string::npos) std::abort();
}

}  // namespace

GT_FUZZ_TARGET(kernel_follow) {
  static const gt::fuzz::ScratchTree tree;
  const std::string log = tree.root().path("/kern.log");
  std::error_code ec;
  std::filesystem::remove(log + ".1", ec);
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t cut = in.find('\n', in.size() / 2);
  cut = cut == std::string_view::npos ? in.size() : cut + 1;
  write_to(log, in.substr(0, cut), false);
  gt::KernelLogFollower f("/", log);
  size_t events = 0;
  poll_and_check(f, events);
  size_t unpolled = 0;
  for (size_t at = cut; at < in.size();) {
    size_t end = in.find('\n', at);
    end = end == std::string_view::npos ? in.size() : end + 1;
    std::string_view line = in.substr(at, end - at);
    at = end;
    const char op = line.empty() ? 0 : line[0];
    if (op == '\x01') {
      poll_and_check(f, events);
    } else if (op == '\x02') {
      std::filesystem::rename(log, log + ".1", ec);
      write_to(log, line.substr(1), false);
    } else if (op == '\x03') {
      std::filesystem::resize_file(log, 0, ec);
    } else if (op == '\x04') {
      std::filesystem::remove(log, ec);
    } else if (op == '\x05') {
      write_to(log, line.substr(1, line.size() / 2), true);
      poll_and_check(f, events);
      write_to(log, line.substr(1 + line.size() / 2), true);
    } else {
      write_to(log, line, true);
      unpolled += line.size();
    }
    if (unpolled >= kPollEveryBytes) {
      poll_and_check(f, events);
      unpolled = 0;
    }
  }
  poll_and_check(f, events);
  return 0;
}
