#include "sources/incident/host.h"

#include <sys/timex.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <sstream>
#include <thread>

#include "util/errno_error.h"

namespace gt {
namespace {

constexpr const char* kFixtureDir = "/.gt-fixture";

std::optional<int64_t> to_int(const std::optional<std::string>& s, int base = 10) {
  if (!s || s->empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s->c_str(), &end, base);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

KernelClock kernel_clock_from(int state, unsigned status, std::optional<int64_t> max_error_us) {
  // adjtimex(2): TIME_ERROR (5) "the system clock is not synchronized to a
  // reliable server"; STA_UNSYNC (0x0040) "clock unsynchronized".
  constexpr int kTimeError = 5;
  constexpr unsigned kStaUnsync = 0x0040;
  KernelClock k;
  k.synchronised = state != kTimeError && (status & kStaUnsync) == 0;
  k.max_error_us = max_error_us;
  return k;
}

std::optional<int64_t> RealClockSource::now_unix_s() const {
  return static_cast<int64_t>(std::time(nullptr));
}

Result<KernelClock> RealClockSource::kernel_clock() const {
  struct timex tx {};
  tx.modes = 0;  // read only
  int state = ::adjtimex(&tx);
  if (state < 0) return errno_error(errno, "adjtimex");
  return kernel_clock_from(state, static_cast<unsigned>(tx.status), tx.maxerror);
}

CommandResult FixtureHost::run(const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout) const {
  const std::string want = join(argv);
  const std::string dir = std::string(kFixtureDir) + "/commands";
  Result<std::vector<std::string>> names = root_.list(dir);
  CommandResult r;
  for (const std::string& n : names ? *names : std::vector<std::string>{}) {
    if (!n.ends_with(".cmd") || root_.read_optional_trimmed(dir + "/" + n) != want) continue;
    const std::string base = dir + "/" + n.substr(0, n.size() - 4);
    std::optional<std::string> rc = root_.read_optional_trimmed(base + ".rc");
    if (rc == "absent") break;
    if (rc == "spawn-error") {  // recorded by RecordingHost: the program could not start
      Result<std::string> why = root_.read(base + ".err");
      r.spawn_error = why ? *why : "cannot run " + argv.at(0);
      return r;
    }
    if (rc == "timeout") {
      std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(50)));
      r.timed_out = true;
      return r;
    }
    r.exit_code = static_cast<int>(to_int(rc).value_or(0));
    Result<std::string> out = root_.read(base + ".out");
    if (out) r.out = *out;
    if (Result<std::string> err = root_.read(base + ".err"); err) r.err = *err;
    return r;
  }
  r.absent = true;
  return r;
}

std::optional<std::string> FixtureHost::clock_value(const std::string& key) const {
  std::optional<std::string> text =
      root_.read_optional_trimmed(std::string(kFixtureDir) + "/clock");
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(key + "=")) return line.substr(key.size() + 1);
  return std::nullopt;
}

std::optional<int64_t> FixtureHost::now_unix_s() const { return to_int(clock_value("now_unix_s")); }

Result<KernelClock> FixtureHost::kernel_clock() const {
  std::optional<int64_t> state = to_int(clock_value("adjtimex_state"));
  if (!state) return Error{ErrorKind::kNotFound, "adjtimex: not in the fixture tree"};
  std::optional<int64_t> status = to_int(clock_value("adjtimex_status"), 16);
  return kernel_clock_from(static_cast<int>(*state), static_cast<unsigned>(status.value_or(0)),
                           to_int(clock_value("maxerror_us")));
}

}  // namespace gt
