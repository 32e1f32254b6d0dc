#include "util/duration.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace gt {
namespace {

constexpr double kMaxDurationMs = 24.0 * 3600 * 1000;  // every duration option: at most 1 day

}  // namespace

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  auto bad = [&](const char* why) {
    return Error{ErrorKind::kMalformed, "invalid duration '" + std::string(text) + "': " + why +
                                            " (use e.g. 500ms, 2s, 1.5s, 1m)"};
  };
  size_t unit_pos = text.find_first_not_of("0123456789.");
  std::string_view number = text.substr(0, unit_pos);
  std::string_view unit = unit_pos == std::string_view::npos ? "" : text.substr(unit_pos);
  if (number.empty()) return bad("no number");
  double value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || ptr != number.data() + number.size()) return bad("not a number");
  double scale_ms = 0;
  if (unit.empty() || unit == "s")
    scale_ms = 1000;
  else if (unit == "ms")
    scale_ms = 1;
  else if (unit == "m" || unit == "min")
    scale_ms = 60000;
  else if (unit == "h")
    scale_ms = 3600 * 1000;
  else if (unit == "d")
    scale_ms = 24 * 3600 * 1000;
  else
    return bad("unknown unit");
  double ms = value * scale_ms;
  if (!std::isfinite(ms) || ms > kMaxDurationMs) return bad("too large (at most 1 day)");
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(ms)));
}

std::string whole_seconds(std::chrono::milliseconds d) {
  return std::to_string(std::max<int64_t>(1, d.count() / 1000));
}

}  // namespace gt
