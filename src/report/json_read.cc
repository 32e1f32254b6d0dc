#include "report/json_read.h"

#include <charconv>
#include <cmath>

#include "util/json_text.h"
#include "util/numeric.h"
#include "util/time_format.h"

namespace gt::json_read {
namespace {

const char* type_word(const J& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_float()) return "a fractional number";
  if (j.is_number()) return "an integer";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

/// "YYYY-MM-DDTHH:MM:SSZ" -> Unix seconds, without checking the ranges
/// (the caller formats the result again and compares).
std::optional<int64_t> parse_iso(const std::string& s) {
  int64_t year = 0;
  unsigned mon = 0, day = 0, h = 0, m = 0, sec = 0;
  int used = 0;
  if (s.size() > 32 ||
      std::sscanf(s.c_str(), "%5ld-%2u-%2uT%2u:%2u:%2uZ%n", &year, &mon, &day, &h, &m, &sec,
                  &used) != 6 ||
      static_cast<size_t>(used) != s.size())
    return std::nullopt;
  return days_from_civil(year, static_cast<int>(mon), static_cast<int>(day)) * 86400 + h * 3600 +
         m * 60 + sec;
}

}  // namespace

bool nvml_return_word(const std::string& word) {
  constexpr std::string_view kPrefix = "NVML_ERROR_";
  return word.size() > kPrefix.size() && word.size() <= 64 && word.starts_with(kPrefix) &&
         word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", kPrefix.size()) ==
             std::string::npos;
}

bool integral_beyond_64_bits(double v) {
  return std::isfinite(v) && std::trunc(v) == v && std::fabs(v) >= 9223372036854775808.0;
}

void fail(const std::string& path, const std::string& what) { throw ReadError{path + ": " + what}; }

void wrong_type(const std::string& path, const char* expected, const J& got) {
  fail(path, std::string("expected ") + expected + ", got " + type_word(got));
}

Obj::Obj(const J& j, std::string path) : j_(&j), path_(std::move(path)) {
  if (j.is_null())
    j_ = nullptr;
  else if (!j.is_object())
    wrong_type(path_, "an object", j);
}

const J* Obj::find(const char* key) const {
  if (!j_) return nullptr;
  auto it = j_->find(key);
  return it == j_->end() ? nullptr : &*it;
}

Obj Obj::sub(const char* key) const {
  static const J kNull;
  const J* v = find(key);
  return Obj(v ? *v : kNull, at(key));
}

void read(const J& j, const std::string& path, std::string& out) {
  if (!j.is_string()) wrong_type(path, "a string", j);
  out = j.get<std::string>();
}

void read(const J& j, const std::string& path, bool& out) {
  if (!j.is_boolean()) wrong_type(path, "a boolean", j);
  out = j.get<bool>();
}

void read(const J& j, const std::string& path, double& out) {
  if (!j.is_number()) wrong_type(path, "a number", j);
  out = j.get<double>();
  if (!std::isfinite(out)) fail(path, "not a finite number");
}

void read_hex(const J& j, const std::string& path, std::optional<uint64_t>& out) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  if (!j.is_string()) wrong_type(path, "a hex string", j);
  const std::string s = j.get<std::string>();
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
    fail(path, "expected \"0x\" and up to 16 hex digits, got \"" + s.substr(0, 40) + "\"");
  uint64_t v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) fail(path, "not a hex digit in \"" + s + "\"");
    v = v << 4 | static_cast<uint64_t>(d);
  }
  out = v;
}

void read_hex(const J& j, const std::string& path, std::optional<uint32_t>& out) {
  std::optional<uint64_t> wide;
  read_hex(j, path, wide);
  if (wide && *wide > UINT32_MAX) fail(path, "out of range");
  out = wide ? std::optional<uint32_t>(static_cast<uint32_t>(*wide)) : std::nullopt;
}

void read(const J& j, const std::string& path, CpuList& out) {
  std::string text;
  read(j, path, text);
  std::optional<CpuList> cpus = parse_cpu_list(text);
  if (!cpus)
    fail(path, "expected a CPU list as \"0-31,64-95\", got \"" + text.substr(0, 40) + "\"");
  out = std::move(*cpus);
}

void read_time(const J& j, const std::string& path, std::optional<int64_t>& out) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  if (!j.is_string()) wrong_type(path, "an ISO 8601 UTC time", j);
  const std::string s = j.get<std::string>();
  std::optional<int64_t> t = parse_iso(s);
  // Only what format_utc writes: "2026-02-30T..." or "24:00:00" never is.
  if (!t || format_utc(*t) != s)
    fail(path, "expected a time as \"2026-11-29T16:15:27Z\", got \"" + s.substr(0, 40) + "\"");
  out = t;
}

void check_within(const J& j, const std::string& path, const Within& w) {
  if (j.is_string() && j.get_ref<const std::string&>().size() > w.max)
    fail(path, "longer than " + std::to_string(w.max) + " bytes");
  if (!j.is_array()) return;
  if (j.size() > w.max)
    fail(path, std::to_string(j.size()) + " items, over the bound of " + std::to_string(w.max));
  if (w.each == 0) return;
  for (size_t i = 0; i < j.size(); ++i)
    check_within(j.at(i), path + "[" + std::to_string(i) + "]", Within{w.each});
}

namespace {

/// An integer second, or nullopt when it is outside 1970..9999; a value
/// that is no integer (a float: 1e300 read as int64 is undefined) fails.
std::optional<int64_t> unix_s_of(const J& j, const std::string& path) {
  if (j.is_number_float() && integral_beyond_64_bits(j.get<double>()))
    fail(path, "out of range (1970..9999)");  // 1e300: whole, not fractional
  if (!j.is_number_integer()) wrong_type(path, "an integer time", j);
  if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(kMaxUnixS))
    return std::nullopt;
  return plausible_unix_s(j.get<int64_t>());
}

}  // namespace

void read_unix_s(const J& j, const std::string& path, int64_t& out) {
  const std::optional<int64_t> t = unix_s_of(j, path);
  if (!t) fail(path, json_text(j) + " is out of range (1970..9999)");
  out = *t;
}

void read_unix_s(const J& j, const std::string& path, std::optional<int64_t>& out) {
  out = j.is_null() ? std::nullopt : unix_s_of(j, path);
}

void read_or_empty(const J& j, const std::string& path, std::string& out) {
  if (j.is_null())
    out.clear();
  else
    read(j, path, out);
}

}  // namespace gt::json_read

namespace gt::json_read {

void read_pstate(const J& j, const std::string& path, std::optional<uint32_t>& out) {
  std::optional<std::string> s;
  read(j, path, s);
  if (!s) {
    out.reset();
    return;
  }
  // NVML's performance states are P0..P15 (nvmlPstates_t); its
  // NVML_PSTATE_UNKNOWN (32) is written as null.
  const bool digits = s->size() >= 2 && s->size() <= 3 && (*s)[0] == 'P' &&
                      s->find_first_not_of("0123456789", 1) == std::string::npos;
  const uint64_t n = digits ? std::stoull(s->substr(1)) : 0;
  if (!digits || n > 15 || "P" + std::to_string(n) != *s)
    fail(path, "expected \"P0\"..\"P15\", got \"" + s->substr(0, 40) + "\"");
  out = static_cast<uint32_t>(n);
}

void read_masks(const J& j, const std::string& path, std::vector<uint64_t>& out) {
  if (!j.is_array()) wrong_type(path, "an array", j);
  out.clear();
  for (size_t i = 0; i < j.size(); ++i) {
    std::optional<uint64_t> m;
    const std::string at = path + "[" + std::to_string(i) + "]";
    read_hex(j.at(i), at, m);
    if (!m) fail(at, "expected a hex mask, got null");
    out.push_back(*m);
  }
}

std::optional<uint32_t> unknown_code(const std::string& path, const std::string& word) {
  constexpr std::string_view kUnknown = "unknown(";
  if (!word.starts_with(kUnknown) || !word.ends_with(")")) return std::nullopt;
  const std::string digits = word.substr(kUnknown.size(), word.size() - kUnknown.size() - 1);
  uint32_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    fail(path, "expected \"unknown(N)\", got \"" + word.substr(0, 40) + "\"");
  return n;
}

}  // namespace gt::json_read
