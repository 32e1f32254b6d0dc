#include "util/time_format.h"

#include <ctime>

namespace gt {

std::string format_utc(int64_t unix_s, const char* format) {
  time_t t = static_cast<time_t>(unix_s);
  tm utc{};
  gmtime_r(&t, &utc);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, format, &utc);
  return std::string(buf, n);
}

}  // namespace gt
