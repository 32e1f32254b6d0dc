// Kernel log parsing and reading (formats: shared/reference/xid-catalog.md,
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
// We never anchor on the prefix: the message is found by searching for
// "NVRM:" / "SXid (" and only then is the prefix parsed for a timestamp, so the
// hot path over a big log is three substring searches per line. Messages:
//   NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', name=<unknown>, An unc...
//   NVRM: Xid (0000:01:00): 3, C 00000005 ...        (legacy: no "PCI:")
//   NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.   (no pid)
//   NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x...)
//   nvidia-nvswitch1: SXid (PCI:0000:02:00.0): 22013, Non-fatal, Link 00 ...
//       followed by "..., Severity 0 Engine ..." and "..., Data {0x...}" lines
//       for the same event (joined to it).
//   NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.       (after Xid 79)
//   NVRM: GPU at 0000:01:00.0 has fallen off the bus.         (legacy)
//   NVRM: The NVIDIA GPU 0000:b3:00.0 / NVRM: (PCI ID: 10de:26b5) installed in
//       this system has / NVRM: fallen off the bus and is not responding ...
//       (570.x, split over indented lines or separate records)
// Xid bus ids carry no function ("PCI:DDDD:BB:DD"); SXid ones do. The pid is
// "'<unknown>'" (quoted) and the name "<unknown>" when not attributable; names
// are comm (15 chars, may hold spaces). Everything else printed by NVRM (the
// "GPU at PCI:..: GPU-uuid" preamble, GSP RPC tables, rate-limit notices,
// module load lines) is context, not an event, and is not counted as
// unparsed; only lines that look like an Xid/SXid but do not parse are.
// Timestamps are range-checked field by field before any arithmetic (year
// 1970-9999, a day that exists, hh < 24, uptime under 1e10 s, btime within
// years 1970-9999): a line dated year -2147483648, day 0 or "[ inf]" has no
// timestamp, never an overflowed one.
#include "sources/kernel_log/kernel_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>

#include "util/numeric.h"

namespace gt {
namespace {

using std::string_view;
constexpr size_t kNpos = string_view::npos;
constexpr size_t kReadCap = 256u << 20;          // bytes of one log file we parse
constexpr int kMaxJoins = 32;                    // continuation lines per event
constexpr int kMaxPendingLines = 4;              // lines of a split fallen-off message
constexpr int kMinYear = 1970, kMaxYear = 9999;  // dates we believe
constexpr int64_t kMaxUnixS = 253402300799;      // 9999-12-31T23:59:59Z
constexpr double kMaxUptimeS = 1e10;             // ~317 years since boot

bool contains(string_view s, string_view what) { return s.find(what) != kNpos; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_alnum(char c) { return is_hex(c) || (c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z'); }

string_view trim(string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

template <typename T>
std::optional<T> to_num(string_view s, int base = 10) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
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

struct Stamp {
  std::optional<double> mono;
  std::optional<int64_t> unix_s;
  std::optional<std::string> text;
};

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

// Seconds since boot when plausible (finite, 0..kMaxUptimeS).
std::optional<double> plausible_uptime(double s) { return checked_double(s, 0, kMaxUptimeS); }

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

struct KmsgHeader {
  uint64_t seq = 0;
  uint64_t usec = 0;
  size_t msg_start = 0;
};

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

// ---- messages -----------------------------------------------------------------

// After "<code>": "pid=N, name=X, rest" or "pid='<unknown>', name=<unknown>,
// rest" or just "rest".
void parse_pid_name(string_view tail, KernelLogEvent& ev) {
  tail = trim(tail);
  if (tail.substr(0, 4) == "pid=") {
    size_t comma = tail.find(',');
    string_view v = tail.substr(4, comma == kNpos ? kNpos : comma - 4);
    ev.pid = to_num<uint32_t>(v);
    tail = comma == kNpos ? string_view() : trim(tail.substr(comma + 1));
  }
  if (tail.substr(0, 5) == "name=") {
    size_t end = tail.find(", ");
    string_view name = tail.substr(5, end == kNpos ? kNpos : end - 5);
    if (!name.empty() && name != "<unknown>") ev.process_name = std::string(name);
    tail = end == kNpos ? string_view() : tail.substr(end + 2);
  }
  ev.detail = std::string(trim(tail));
}

// "<marker> (<bus>)<anything>: <code>[, tail]" -> bus, code, tail.
struct CodedLine {
  std::optional<std::string> bus;
  int code = 0;
  string_view tail;
};

std::optional<CodedLine> parse_coded(string_view s) {
  size_t open = s.find('(');
  size_t close = s.find(')', open == kNpos ? 0 : open);
  if (open == kNpos || close == kNpos || open > 6) return std::nullopt;
  CodedLine c;
  c.bus = canonical_bus(s.substr(open + 1, close - open - 1));
  size_t colon = s.find(':', close);
  if (colon == kNpos) return std::nullopt;
  size_t i = colon + 1;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t start = i;
  while (i < s.size() && is_digit(s[i]) && i - start < 9) ++i;
  auto code = to_num<int>(s.substr(start, i - start));
  if (!code || (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != '\r')) return std::nullopt;
  c.code = *code;
  c.tail = i < s.size() ? trim(s.substr(i + 1)) : string_view();
  return c;
}

bool starts_with(string_view s, string_view p) { return s.substr(0, p.size()) == p; }

// Stateful line-by-line parser.
class Parser {
 public:
  explicit Parser(const std::string& boot) : boot_(boot) {}

  void feed(string_view line);
  ParsedKernelLog finish();

 private:
  void record(string_view line, string_view prefix_hint);
  void nvrm(string_view body, string_view prefix, string_view line);
  void xid(string_view body, string_view prefix, string_view line);
  void sxid(string_view msg, string_view prefix, string_view line);
  bool continuation(string_view text);
  void start_pending(string_view body, string_view prefix, string_view line);
  void add_to_pending(string_view body, string_view line);
  KernelLogEvent& add(std::string kind, string_view prefix, string_view line);
  void fold_fallen_off_into_xid79();

  std::string boot_;
  ParsedKernelLog out_;
  long open_event_ = -1;  // where continuation lines go
  int open_joins_ = 0;
  bool sxid_group_open_ = false;
  std::optional<KernelLogEvent> pending_;  // "The NVIDIA GPU ..." so far
  int pending_lines_ = 0;
  bool pending_open_ = false;  // the last record went into pending_
};

KernelLogEvent& Parser::add(std::string kind, string_view prefix, string_view line) {
  KernelLogEvent& ev = out_.events.emplace_back();
  ev.kind = std::move(kind);
  ev.boot = boot_;
  Stamp st = parse_stamp(prefix);
  ev.monotonic_s = st.mono;
  ev.time_unix_s = st.unix_s;
  ev.time_text = std::move(st.text);
  ev.line = std::string(trim(line));
  open_event_ = static_cast<long>(out_.events.size()) - 1;
  open_joins_ = 0;
  return ev;
}

void Parser::feed(string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (trim(line).empty()) return;
  ++out_.lines;
  if (line[0] == ' ' || line[0] == '\t') {
    if (is_kmsg_dict(line)) return;
    if (continuation(trim(line))) return;
  }
  open_event_ = -1;
  pending_open_ = false;
  if (!contains(line, "NVRM") && !contains(line, "Xid") && !contains(line, "fallen off")) return;
  auto k = parse_kmsg_header(line);
  if (!k || !contains(line, "\\x")) return record(line, {});
  // A multi-line kmsg record: first line is the record, the rest continue it.
  std::string header(line.substr(0, k->msg_start));
  std::string msg = unescape_kmsg(line.substr(k->msg_start));
  string_view rest = msg;
  for (bool first = true; !rest.empty(); first = false) {
    size_t nl = rest.find('\n');
    string_view part = rest.substr(0, nl);
    rest = nl == kNpos ? string_view() : rest.substr(nl + 1);
    if (!first && continuation(trim(part))) continue;
    std::string whole = header + std::string(part);
    record(whole, header);
  }
}

void Parser::record(string_view line, string_view prefix_hint) {
  size_t nv = line.find("NVRM:");
  size_t sx = line.find("SXid (");
  if (sx != kNpos && (nv == kNpos || sx < nv)) {
    size_t sw = line.find("nvidia-nvswitch");
    size_t start = sw != kNpos && sw < sx ? sw : sx;
    return sxid(line.substr(sx), prefix_hint.empty() ? line.substr(0, start) : prefix_hint, line);
  }
  if (nv == kNpos) {
    if (contains(line, "Xid (") || contains(line, "Xid(")) ++out_.unparsed_nvidia_lines;
    return;
  }
  string_view prefix = prefix_hint.empty() ? line.substr(0, nv) : prefix_hint;
  nvrm(trim(line.substr(nv + 5)), prefix, line);
}

void Parser::nvrm(string_view body, string_view prefix, string_view line) {
  if (starts_with(body, "Xid")) {
    pending_.reset();
    return xid(body, prefix, line);
  }
  if (pending_ && !starts_with(body, "GPU") && !starts_with(body, "The NVIDIA GPU"))
    return add_to_pending(body, line);
  pending_.reset();
  if (starts_with(body, "The NVIDIA GPU") && !contains(body, "fallen off the bus"))
    return start_pending(body, prefix, line);
  if (!contains(body, "fallen off the bus")) return;
  KernelLogEvent& ev = add("fallen-off-bus", prefix, line);
  ev.pci_bus_id = find_bus(body);
  ev.detail = std::string(body);
}

void Parser::xid(string_view body, string_view prefix, string_view line) {
  auto c = parse_coded(body.substr(3));
  if (!c) {
    ++out_.unparsed_nvidia_lines;
    return;
  }
  KernelLogEvent& ev = add("xid", prefix, line);
  ev.code = c->code;
  ev.pci_bus_id = c->bus;
  parse_pid_name(c->tail, ev);
}

void Parser::sxid(string_view msg, string_view prefix, string_view line) {
  auto c = parse_coded(msg.substr(4));
  if (!c) {
    ++out_.unparsed_nvidia_lines;
    return;
  }
  bool follow_on = starts_with(c->tail, "Severity ") || starts_with(c->tail, "Data {");
  if (follow_on && sxid_group_open_ && !out_.events.empty()) {
    KernelLogEvent& last = out_.events.back();
    if (last.kind == "sxid" && last.code == c->code && last.pci_bus_id == c->bus) {
      last.line += " | " + std::string(trim(line));
      sxid_group_open_ = !starts_with(c->tail, "Data {");
      open_event_ = -1;
      return;
    }
  }
  KernelLogEvent& ev = add("sxid", prefix, line);
  ev.code = c->code;
  ev.pci_bus_id = c->bus;
  ev.detail = std::string(c->tail);
  sxid_group_open_ = !starts_with(c->tail, "Data {");
}

void Parser::start_pending(string_view body, string_view prefix, string_view line) {
  Stamp st = parse_stamp(prefix);
  KernelLogEvent ev;
  ev.kind = "fallen-off-bus";
  ev.boot = boot_;
  ev.pci_bus_id = find_bus(body);
  ev.monotonic_s = st.mono;
  ev.time_unix_s = st.unix_s;
  ev.time_text = std::move(st.text);
  ev.detail = std::string(body);
  ev.line = std::string(trim(line));
  pending_ = std::move(ev);
  pending_lines_ = 1;
  pending_open_ = true;
}

void Parser::add_to_pending(string_view body, string_view line) {
  pending_->line += " | " + std::string(trim(line));
  pending_->detail += " " + std::string(body);
  pending_open_ = true;
  if (contains(pending_->detail, "fallen off the bus")) {
    out_.events.push_back(std::move(*pending_));
    pending_.reset();
    open_event_ = static_cast<long>(out_.events.size()) - 1;
    open_joins_ = 0;
  } else if (++pending_lines_ >= kMaxPendingLines) {
    pending_.reset();
  }
}

bool Parser::continuation(string_view text) {
  if (text.empty() || contains(text, "Xid (")) return false;
  if (pending_ && pending_open_) {
    size_t nv = text.find("NVRM:");
    add_to_pending(nv == kNpos ? text : trim(text.substr(nv + 5)), text);
    return true;
  }
  if (open_event_ < 0 || open_joins_ >= kMaxJoins) return false;
  out_.events[static_cast<size_t>(open_event_)].line += " | " + std::string(text);
  ++open_joins_;
  return true;
}

bool close_in_time(const KernelLogEvent& a, const KernelLogEvent& b) {
  if (a.time_unix_s && b.time_unix_s) return std::llabs(*a.time_unix_s - *b.time_unix_s) <= 10;
  if (a.monotonic_s && b.monotonic_s) return std::fabs(*a.monotonic_s - *b.monotonic_s) <= 10;
  return true;
}

// The driver prints "GPU ...: GPU has fallen off the bus." right after the
// Xid 79 line: one event, not two.
void Parser::fold_fallen_off_into_xid79() {
  std::vector<KernelLogEvent>& ev = out_.events;
  std::vector<bool> drop(ev.size(), false);
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev[i].kind != "fallen-off-bus" || !ev[i].pci_bus_id) continue;
    size_t lo = i >= 3 ? i - 3 : 0, hi = std::min(ev.size(), i + 4);
    for (size_t j = lo; j < hi; ++j) {
      if (j == i || drop[j] || ev[j].kind != "xid" || ev[j].code != 79 ||
          ev[j].pci_bus_id != ev[i].pci_bus_id || !close_in_time(ev[i], ev[j]))
        continue;
      ev[j].line += " | " + ev[i].line;
      drop[i] = true;
      break;
    }
  }
  size_t w = 0;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (drop[i]) continue;
    if (w != i) ev[w] = std::move(ev[i]);
    ++w;
  }
  ev.resize(w);
}

ParsedKernelLog Parser::finish() {
  fold_fallen_off_into_xid79();
  return std::move(out_);
}

}  // namespace

ParsedKernelLog parse_kernel_log_text(string_view text, const std::string& boot) {
  Parser parser(boot);
  while (!text.empty()) {
    size_t nl = text.find('\n');
    parser.feed(text.substr(0, nl));
    if (nl == kNpos) break;
    text.remove_prefix(nl + 1);
  }
  return parser.finish();
}

namespace {

// ---- reading --------------------------------------------------------------------

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
    t.error = "cannot read " + path + ": " + std::strerror(errno);
    break;
  }
  return t;
}

// A whole file, or its last kReadCap bytes from a line start.
Text read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Text{{}, "cannot open " + path + ": " + std::strerror(errno)};
  struct stat sb {};
  bool tail =
      ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && static_cast<uint64_t>(sb.st_size) > kReadCap;
  if (tail) ::lseek(fd, sb.st_size - static_cast<off_t>(kReadCap), SEEK_SET);
  Text t = read_fd(fd, path);
  ::close(fd);
  if (tail) t.data.erase(0, std::min(t.data.size(), t.data.find('\n') + 1));
  return t;
}

Text read_kmsg(const FsRoot& root) {
  const std::string path = root.path("/dev/kmsg");
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return Text{{}, "not found"};
    if (err == EPERM || err == EACCES)
      return Text{{}, "permission denied (run as root or with CAP_SYSLOG)"};
    return Text{{}, "cannot open " + path + ": " + std::strerror(err)};
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
      to_num<int64_t>(trim(string_view(text).substr(start, end - start)));
  if (!btime || *btime < 0 || *btime > kMaxUnixS) return std::nullopt;  // no sum can overflow
  return btime;
}

// Monotonic seconds of the first record in kmsg text.
std::optional<double> first_kmsg_mono(string_view text) {
  auto k = parse_kmsg_header(text.substr(0, text.find('\n')));
  if (!k) return std::nullopt;
  return plausible_uptime(static_cast<double>(k->usec) / 1e6);
}

Source make_source(std::string name, std::string boot) {
  Source s;
  s.name = std::move(name);
  s.boot = std::move(boot);
  return s;
}

// Records the parse of `text` in `src`; returns its events.
std::vector<KernelLogEvent> take(const Text& text, const std::string& boot, Source& src,
                                 KernelLog& log) {
  if (text.error) {
    src.error = text.error;
    return {};
  }
  ParsedKernelLog parsed = parse_kernel_log_text(text.data, boot);
  src.read = true;
  src.lines = parsed.lines;
  log.unparsed_nvidia_lines += parsed.unparsed_nvidia_lines;
  return std::move(parsed.events);
}

std::string first_line(string_view s) {
  size_t start = s.find_first_not_of("\n \t");
  if (start == kNpos) return "";
  s.remove_prefix(start);
  return std::string(trim(s.substr(0, s.find('\n'))));
}

std::vector<KernelLogEvent> read_journal(const KernelLogOptions& o, KernelLog& log) {
  static const RealCommandRunner kReal;
  const CommandRunner& runner = o.runner ? *o.runner : kReal;
  Source src = make_source("journalctl -k -b -1", "previous");
  CommandResult r = runner.run(
      {"journalctl", "-k", "-b", "-1", "-o", "short-iso", "--no-pager", "-q"}, o.command_timeout);
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
  std::vector<KernelLogEvent> events = take(text, "previous", src, log);
  log.sources.push_back(std::move(src));
  return events;
}

std::string dedupe_key(const KernelLogEvent& e) {
  return e.kind + '|' + std::to_string(e.code.value_or(-1)) + '|' + e.pci_bus_id.value_or("") +
         '|' + std::to_string(e.pid.value_or(0)) + '|' + e.detail;
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
    e.boot = "current";
    return !kmsg.read;
  }
  if (*e.time_unix_s < *btime) {
    e.boot = "previous";
    return true;
  }
  e.boot = "current";
  return !kmsg.read || (kmsg.oldest_unix && *e.time_unix_s < *kmsg.oldest_unix - 1);
}

void read_kern_logs(const FsRoot& root, std::optional<int64_t> btime, const KmsgState& kmsg,
                    KernelLog& log, std::vector<KernelLogEvent>& previous,
                    std::vector<KernelLogEvent>& current) {
  for (const char* name : {"/var/log/kern.log.1", "/var/log/kern.log"}) {
    struct stat sb {};
    if (::stat(root.path(name).c_str(), &sb) != 0 && errno == ENOENT) continue;
    Source src = make_source(name, "previous");
    for (KernelLogEvent& e : take(read_file(root.path(name)), "previous", src, log)) {
      if (classify(e, btime, kmsg)) (e.boot == "previous" ? previous : current).push_back(e);
    }
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
  Source src = make_source(file == "-" ? "stdin" : file, "file");
  Text text = file == "-" ? read_fd(0, "stdin") : read_file(file);
  log.events = take(text, "file", src, log);
  log.sources.push_back(std::move(src));
  return log;
}

}  // namespace

KernelLog read_kernel_log(const FsRoot& root, const KernelLogOptions& options) {
  if (options.file) return read_file_option(*options.file);
  KernelLog log;
  const std::optional<int64_t> btime = read_btime(root);
  Source ksrc = make_source("/dev/kmsg", "current");
  Text ktext = read_kmsg(root);
  std::vector<KernelLogEvent> kmsg_events = take(ktext, "current", ksrc, log);
  KmsgState kmsg{ksrc.read, std::nullopt};
  if (auto mono = first_kmsg_mono(ktext.data); mono && btime)
    kmsg.oldest_unix = *btime + static_cast<int64_t>(*mono);
  for (KernelLogEvent& e : kmsg_events) {
    if (btime && e.monotonic_s) e.time_unix_s = *btime + std::llround(*e.monotonic_s);
  }
  log.sources.push_back(std::move(ksrc));

  std::vector<KernelLogEvent> previous, current;
  if (root.root() == "/" || root.root().empty()) previous = read_journal(options, log);
  std::vector<KernelLogEvent> kern_previous;
  read_kern_logs(root, btime, kmsg, log, kern_previous, current);
  drop_repeats(kern_previous, previous);
  previous.insert(previous.end(), kern_previous.begin(), kern_previous.end());
  current.insert(current.end(), kmsg_events.begin(), kmsg_events.end());
  sort_if_all_timed(previous);
  sort_if_all_timed(current);
  log.events = std::move(previous);
  log.events.insert(log.events.end(), current.begin(), current.end());
  return log;
}

}  // namespace gt
