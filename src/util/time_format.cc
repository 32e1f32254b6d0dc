#include "util/time_format.h"

#include <ctime>

#include "util/numeric.h"

namespace gt {

std::string format_utc(int64_t unix_s, const char* format) {
  // gmtime_r fails past int years and strftime then prints garbage
  // ("1550575222-01-00"): a time no clock gives is unknown.
  if (!plausible_unix_s(unix_s)) return "?";
  time_t t = static_cast<time_t>(unix_s);
  tm utc{};
  gmtime_r(&t, &utc);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, format, &utc);
  return std::string(buf, n);
}

int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace gt
