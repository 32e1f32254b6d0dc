#include "sources/smi_xml/smi_timestamp.h"

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "util/numeric.h"
#include "util/time_format.h"

namespace gt {
namespace {

std::vector<std::string> words(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> out;
  for (std::string w; in >> w && out.size() < 6;) out.push_back(w);
  return out;
}

std::optional<int> month_index(const std::string& m) {
  static const std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (m == kMonths[i]) return static_cast<int>(i) + 1;
  return std::nullopt;
}

bool is_weekday(const std::string& d) {
  static const std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  for (const char* k : kDays)
    if (d == k) return true;
  return false;
}

int days_in_month(int64_t y, int m) {
  static const std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

std::optional<int64_t> smi_timestamp_unix_s(std::string_view text) {
  const std::vector<std::string> w = words(text);
  if (w.size() != 5 || !is_weekday(w[0])) return std::nullopt;
  const std::optional<int> month = month_index(w[1]);
  const std::optional<int> day = parse_int<int>(w[2]);
  const std::optional<int64_t> year = parse_int<int64_t>(w[4]);
  const std::string& t = w[3];
  if (!month || !day || !year || t.size() != 8 || t[2] != ':' || t[5] != ':') return std::nullopt;
  const std::optional<int> h = parse_int<int>(std::string_view(t).substr(0, 2));
  const std::optional<int> mi = parse_int<int>(std::string_view(t).substr(3, 2));
  const std::optional<int> s = parse_int<int>(std::string_view(t).substr(6, 2));
  if (!h || !mi || !s || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  if (*year < 1970 || *year > 9999 || *day < 1 || *day > days_in_month(*year, *month))
    return std::nullopt;
  return days_from_civil(*year, *month, *day) * 86400 + *h * 3600 + *mi * 60 + *s;
}

}  // namespace gt
