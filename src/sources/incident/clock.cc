#include "sources/incident/clock.h"

#include <ctime>
#include <iomanip>
#include <sstream>

#include "util/numeric.h"

namespace gt {
namespace {

std::optional<bool> yes_no(std::string_view v) {
  if (v == "yes") return true;
  if (v == "no") return false;
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> read_rtc_unix_s(const FsRoot& root) {
  if (std::optional<std::string> s =
          root.read_optional_trimmed("/sys/class/rtc/rtc0/since_epoch")) {
    char* end = nullptr;
    long long v = std::strtoll(s->c_str(), &end, 10);
    if (end != s->c_str() && *end == '\0' && v > 0) return v;
  }
  std::optional<std::string> date = root.read_optional_trimmed("/sys/class/rtc/rtc0/date");
  std::optional<std::string> time = root.read_optional_trimmed("/sys/class/rtc/rtc0/time");
  if (!date || !time) return std::nullopt;
  std::tm tm{};
  std::istringstream in(*date + " " + *time);
  in >> std::get_time(&tm, "%Y-%m-%d %H:%M:%S");
  if (in.fail()) return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

void parse_timedatectl(std::string_view text, ClockState& clock) {
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("NTP=")) clock.ntp_enabled = yes_no(line.substr(4));
    if (line.starts_with("NTPSynchronized=")) clock.ntp_synchronised = yes_no(line.substr(16));
  }
}

void read_clock(const FsRoot& root, const ClockOptions& o, Incident& out) {
  ClockState& c = out.clock;
  // Both range-checked before the subtraction (a fixture clock at INT64_MIN).
  c.system_unix_s = plausible_unix_s(o.clock->now_unix_s());
  c.rtc_unix_s = plausible_unix_s(read_rtc_unix_s(root));
  if (c.system_unix_s && c.rtc_unix_s) c.rtc_offset_s = *c.system_unix_s - *c.rtc_unix_s;
  Result<KernelClock> k = o.clock->kernel_clock();
  // kNotFound: a fixture tree with no clock; nothing about it is said.
  const bool clock_stood_in = k || k.error().kind != ErrorKind::kNotFound;
  if (!c.rtc_unix_s && clock_stood_in)
    out.unread.push_back("clock: no readable RTC (/sys/class/rtc/rtc0)");
  if (k) {
    c.kernel_synchronised = k->synchronised;
    c.kernel_max_error_us = k->max_error_us;
  } else if (clock_stood_in) {
    out.unread.push_back("clock: " + k.error().message);
  }
  CommandResult r =
      o.runner->run({"timedatectl", "show", "-p", "NTP", "-p", "NTPSynchronized"}, o.timeout);
  if (r.absent) return;
  if (r.spawn_error)
    out.unread.push_back("clock: " + *r.spawn_error);
  else if (r.timed_out)
    out.unread.push_back("clock: timedatectl timed out after " + std::to_string(o.timeout.count()) +
                         " ms");
  else if (r.exit_code == 0)
    parse_timedatectl(r.out, c);
  else
    out.unread.push_back("clock: timedatectl exit code " + std::to_string(r.exit_code));
}

}  // namespace gt
