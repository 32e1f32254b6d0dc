// Kernel-log line prefixes and timestamps (formats: shared/reference/xid-catalog.md,
// "Kernel log line formats"; real samples: shared/fixtures/real/kernel-log).
//
// A line is a transport prefix followed by the kernel message. Prefixes:
//   /dev/kmsg    "6,3964,206764307,-;"  prio,seq,usec,flags[,more];  the
//                message escapes non-printables as "\xNN" (a multi-line printk
//                is one record with "\x0a" inside); dictionary lines follow
//                as " KEY=value" and are skipped.
//   dmesg        "[ 1843.308145] "  seconds since boot; the 2nd.. lines of a
//                multi-line record are printed indented with no timestamp.
//   dmesg -T     "[Sun Feb 23 16:24:18 2025] "  local time.
//   dmesg iso    "2024-11-15T12:02:03,470068+00:00 "  (comma before micros);
//                with --decode the line starts "kern  :warn  : ".
//   journalctl   "May 18 19:02:39 host kernel: "  (short/short-precise: local
//                time, no year; host may be missing in copy-pastes),
//                "2025-01-06T10:00:00+0100 host kernel: " (short-iso);
//                continuation lines of a multi-line entry are indented.
//   syslog       as journalctl, RFC 3164 or RFC 3339 stamps, and older
//                rsyslog adds "[ 269.516977] " after "kernel:".
//   none         "kernel: NVRM: ..." or just "NVRM: ..." in pasted excerpts.
// Timestamps are range-checked field by field before any arithmetic (year
// 1970-9999, a day that exists, hh < 24, uptime under 1e10 s, btime within
// years 1970-9999): a line dated year -2147483648, day 0 or "[ inf]" has no
// timestamp, never an overflowed one.
#include "sources/kernel_log/line_format.h"

#include <cmath>
#include <cstdio>
#include <ctime>

#include "util/numeric.h"

namespace gt::klog {
namespace {

constexpr int kMinYear = 1970, kMaxYear = 9999;  // dates we believe
constexpr double kMaxUptimeS = 1e10;             // ~317 years since boot

}  // namespace

string_view trim(string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// ---- PCI bus ids ------------------------------------------------------------

// "PCI:0000:19:00", "0000:19:00", "0000:02:00.0", "00000000:3B:00.0" ->
// "0000:19:00.0"-style; nullopt when malformed.
std::optional<std::string> canonical_bus(string_view s) {
  s = trim(s);
  if (s.size() > 4 && (s.substr(0, 4) == "PCI:" || s.substr(0, 4) == "pci:")) s.remove_prefix(4);
  std::optional<uint32_t> func = 0u;
  if (size_t dot = s.find('.'); dot != kNpos) {
    func = to_num<uint32_t>(s.substr(dot + 1), 16);
    s = s.substr(0, dot);
  }
  size_t c2 = s.rfind(':');
  if (c2 == kNpos || !func || *func > 7) return std::nullopt;
  size_t c1 = s.rfind(':', c2 == 0 ? 0 : c2 - 1);
  string_view dom = c1 == kNpos ? string_view("0") : s.substr(0, c1);
  string_view bus = c1 == kNpos ? s.substr(0, c2) : s.substr(c1 + 1, c2 - c1 - 1);
  string_view dev = s.substr(c2 + 1);
  auto d = to_num<uint32_t>(dom, 16), b = to_num<uint32_t>(bus, 16), v = to_num<uint32_t>(dev, 16);
  if (!d || !b || !v || dom.size() > 8 || bus.size() > 2 || dev.size() > 2 || *v > 31)
    return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", *d, *b, *v, *func);
  return std::string(buf);
}

// The first "DDDD:BB:DD[.F]" (domain of 4 or 8 hex digits) anywhere in s.
std::optional<std::string> find_bus(string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (!is_hex(s[i]) || (i > 0 && is_alnum(s[i - 1]))) continue;
    size_t j = i;
    while (j < s.size() && is_hex(s[j])) ++j;
    if ((j - i != 4 && j - i != 8) || j + 6 > s.size()) continue;
    if (s[j] != ':' || !is_hex(s[j + 1]) || !is_hex(s[j + 2]) || s[j + 3] != ':' ||
        !is_hex(s[j + 4]) || !is_hex(s[j + 5]))
      continue;
    size_t end = j + 6;
    if (end + 1 < s.size() && s[end] == '.' && is_hex(s[end + 1])) end += 2;
    if (end < s.size() && is_alnum(s[end])) continue;
    if (auto bus = canonical_bus(s.substr(i, end - i))) return bus;
  }
  return std::nullopt;
}

// ---- timestamps -------------------------------------------------------------

// Seconds since boot when plausible (finite, 0..kMaxUptimeS).
std::optional<double> plausible_uptime(double s) { return checked_double(s, 0, kMaxUptimeS); }

namespace {

int month_index(string_view m) {
  static constexpr string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (m == kMonths[i]) return i;
  return -1;
}

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// A date that exists in years kMinYear..kMaxYear; mon is 0-based. With no
// year (RFC 3164), February may have 29 days.
bool valid_date(std::optional<int> year, int mon, int day) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year && (*year < kMinYear || *year > kMaxYear)) return false;
  if (mon < 0 || mon > 11 || day < 1) return false;
  int days = kDays[mon] + (mon == 1 && (!year || is_leap(*year)) ? 1 : 0);
  return day <= days;
}

bool valid_time(const std::tm& tm) {
  return tm.tm_hour >= 0 && tm.tm_hour < 24 && tm.tm_min >= 0 && tm.tm_min < 60 && tm.tm_sec >= 0 &&
         tm.tm_sec <= 60;  // 60: a leap second
}

// Reads exactly n digits at s[i..]; advances i.
std::optional<int> digits(string_view s, size_t& i, size_t n) {
  if (i + n > s.size()) return std::nullopt;
  auto v = to_num<int>(s.substr(i, n));
  if (v) i += n;
  return v;
}

std::optional<int64_t> to_unix(std::tm tm, std::optional<int> utc_offset_s) {
  if (!valid_date(tm.tm_year + 1900, tm.tm_mon, tm.tm_mday) || !valid_time(tm)) return std::nullopt;
  if (utc_offset_s) {
    tm.tm_isdst = 0;
    time_t t = ::timegm(&tm);
    return t == -1 ? std::nullopt : std::optional<int64_t>(t - *utc_offset_s);
  }
  tm.tm_isdst = -1;
  time_t t = std::mktime(&tm);
  return t == -1 ? std::nullopt : std::optional<int64_t>(t);
}

// "HH:MM:SS" at s[i..] into tm; skips a ".ffffff" or ",ffffff" fraction.
bool parse_hms(string_view s, size_t& i, std::tm& tm) {
  auto h = digits(s, i, 2);
  if (!h || i >= s.size() || s[i++] != ':') return false;
  auto m = digits(s, i, 2);
  if (!m || i >= s.size() || s[i++] != ':') return false;
  auto sec = digits(s, i, 2);
  if (!sec) return false;
  tm.tm_hour = *h, tm.tm_min = *m, tm.tm_sec = *sec;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  return true;
}

// RFC 3339 / ISO 8601 at the start of p ("2024-11-15T12:02:03,470068+00:00",
// "2025-01-06T10:00:00+0100", "...Z", or no offset = local time).
bool parse_iso(string_view& p, Stamp& st) {
  std::tm tm{};
  size_t i = 0;
  auto y = digits(p, i, 4);
  if (!y || i >= p.size() || p[i++] != '-') return false;
  auto mo = digits(p, i, 2);
  if (!mo || i >= p.size() || p[i++] != '-') return false;
  auto d = digits(p, i, 2);
  if (!d || i >= p.size() || (p[i] != 'T' && p[i] != ' ')) return false;
  ++i;
  if (!parse_hms(p, i, tm)) return false;
  tm.tm_year = *y - 1900, tm.tm_mon = *mo - 1, tm.tm_mday = *d;
  std::optional<int> offset;
  if (i < p.size() && p[i] == 'Z') {
    offset = 0, ++i;
  } else if (i < p.size() && (p[i] == '+' || p[i] == '-')) {
    int sign = p[i++] == '-' ? -1 : 1;
    auto oh = digits(p, i, 2);
    if (i < p.size() && p[i] == ':') ++i;
    auto om = digits(p, i, 2);
    if (!oh || !om) return false;
    offset = sign * (*oh * 3600 + *om * 60);
  }
  st.unix_s = to_unix(tm, offset);
  st.text = std::string(p.substr(0, i));
  p.remove_prefix(i);
  return true;
}

// The latest year that does not put month/day in the future (syslog has none).
int infer_year(const std::tm& tm) {
  time_t now = std::time(nullptr);
  std::tm lt{};
  ::localtime_r(&now, &lt);
  std::tm guess = tm;
  guess.tm_year = lt.tm_year;
  auto t = to_unix(guess, std::nullopt);
  return t && *t > now + 86400 ? lt.tm_year - 1 : lt.tm_year;
}

// RFC 3164 "May 18 19:02:39" / "Jan  6 10:00:00.123456" at the start of p.
bool parse_rfc3164(string_view& p, Stamp& st) {
  if (p.size() < 15) return false;
  int mon = month_index(p.substr(0, 3));
  if (mon < 0 || p[3] != ' ') return false;
  size_t i = 4;
  if (p[i] == ' ') ++i;
  size_t ds = i;
  while (i < p.size() && is_digit(p[i])) ++i;
  auto day = i - ds <= 2 ? to_num<int>(p.substr(ds, i - ds)) : std::nullopt;
  if (!day || !valid_date(std::nullopt, mon, *day) || i >= p.size() || p[i++] != ' ') return false;
  std::tm tm{};
  if (!parse_hms(p, i, tm)) return false;
  tm.tm_mon = mon, tm.tm_mday = *day;
  tm.tm_year = infer_year(tm);
  st.unix_s = to_unix(tm, std::nullopt);
  st.text = std::string(p.substr(0, i));
  p.remove_prefix(i);
  return true;
}

// The next run of non-blanks in s from i (skipping blanks first); advances i.
string_view next_word(string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  size_t start = i;
  while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
  return s.substr(start, i - start);
}

// ctime form "Sun Feb 23 16:24:18 2025" (dmesg -T), local time. Every field
// is checked (a day of 1-2 digits that exists, a 4-digit year in range)
// before it reaches a std::tm, so no field can overflow.
std::optional<int64_t> parse_ctime(string_view s) {
  size_t i = 0;
  string_view wday = next_word(s, i), mon = next_word(s, i), day = next_word(s, i);
  string_view hms = next_word(s, i), year = next_word(s, i);
  if (wday.size() != 3 || !next_word(s, i).empty() || day.size() > 2 || year.size() != 4)
    return std::nullopt;
  std::tm tm{};
  tm.tm_mon = month_index(mon);
  std::optional<int> d = to_num<int>(day), y = to_num<int>(year);
  size_t j = 0;
  if (!d || !y || !valid_date(*y, tm.tm_mon, *d) || !parse_hms(hms, j, tm) || j != hms.size())
    return std::nullopt;
  tm.tm_year = *y - 1900, tm.tm_mday = *d;
  return to_unix(tm, std::nullopt);
}

// "[ 1843.308145]" or "[Sun Feb 23 16:24:18 2025]" at the start of p.
void parse_bracket(string_view& p, Stamp& st) {
  size_t close = p.find(']');
  if (close == kNpos) return;
  string_view inner = trim(p.substr(1, close - 1));
  p = trim(p.substr(close + 1));
  double v = 0;
  auto [e, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), v);
  if (ec == std::errc() && e == inner.data() + inner.size()) {
    st.mono = plausible_uptime(v);  // "[ inf]", "[ -5]", "[ 1e300]": no stamp
    if (st.mono && !st.text) st.text = std::string(inner);
  } else if (auto t = parse_ctime(inner); t && !st.unix_s) {
    st.unix_s = t;
    st.text = std::string(inner);
  }
}

// "kern  :warn  : " (dmesg --decode): facility and level words.
void strip_decode(string_view& p) {
  size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    size_t start = i;
    while (i < p.size() && p[i] >= 'a' && p[i] <= 'z') ++i;
    if (i == start) return;
    while (i < p.size() && p[i] == ' ') ++i;
    if (i >= p.size() || p[i++] != ':') return;
  }
  p = trim(p.substr(i));
}

}  // namespace

// "prio,seq,usec,flags[,...];" at the start of a /dev/kmsg record.
std::optional<KmsgHeader> parse_kmsg_header(string_view line) {
  if (line.empty() || !is_digit(line[0])) return std::nullopt;
  size_t semi = line.find(';');
  if (semi == kNpos || semi > 200) return std::nullopt;
  string_view head = line.substr(0, semi);
  string_view f[3];
  for (auto& field : f) {
    size_t comma = head.find(',');
    if (comma == kNpos) return std::nullopt;
    field = head.substr(0, comma);
    head.remove_prefix(comma + 1);
  }
  auto prio = to_num<uint32_t>(f[0]);
  auto seq = to_num<uint64_t>(f[1]);
  auto usec = to_num<uint64_t>(f[2]);
  if (!prio || !seq || !usec) return std::nullopt;
  return KmsgHeader{*seq, *usec, semi + 1};
}

// Timestamp from everything before the message.
Stamp parse_stamp(string_view p) {
  Stamp st;
  if (auto k = parse_kmsg_header(p)) {
    st.mono = plausible_uptime(static_cast<double>(k->usec) / 1e6);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llu.%06llu",
                  static_cast<unsigned long long>(k->usec / 1000000),
                  static_cast<unsigned long long>(k->usec % 1000000));
    st.text = buf;
    return st;
  }
  p = trim(p);
  strip_decode(p);
  if (!p.empty() && p[0] == '[') {
    parse_bracket(p, st);
  } else if (!parse_iso(p, st)) {
    parse_rfc3164(p, st);
  }
  if (size_t k = p.find("kernel:"); k != kNpos) {
    string_view q = trim(p.substr(k + 7));
    if (!q.empty() && q[0] == '[') parse_bracket(q, st);
  }
  return st;
}

// "\x0a" and friends in a kmsg message back to bytes.
std::string unescape_kmsg(string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && is_hex(s[i + 2]) &&
        is_hex(s[i + 3])) {
      out.push_back(static_cast<char>(*to_num<int>(s.substr(i + 2, 2), 16)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// " KEY=value" dictionary lines after a kmsg record.
bool is_kmsg_dict(string_view line) {
  size_t i = 1;
  while (i < line.size() && ((line[i] >= 'A' && line[i] <= 'Z') || line[i] == '_')) ++i;
  return line.size() > 1 && line[0] == ' ' && i > 1 && i < line.size() && line[i] == '=';
}

}  // namespace gt::klog
