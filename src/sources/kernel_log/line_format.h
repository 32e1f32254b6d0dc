// Transport prefixes and timestamps of kernel-log lines, PCI bus ids, and the
// small text helpers the other kernel-log units share. Internal to
// src/sources/kernel_log (namespace gt::klog); the public API is kernel_log.h.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gt::klog {

using std::string_view;
constexpr size_t kNpos = string_view::npos;
constexpr int64_t kMaxUnixS = 253402300799;  // 9999-12-31T23:59:59Z

inline bool contains(string_view s, string_view what) { return s.find(what) != kNpos; }
inline bool starts_with(string_view s, string_view p) { return s.substr(0, p.size()) == p; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool is_alnum(char c) {
  return is_hex(c) || (c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z');
}

/// s without leading blanks and trailing blanks / CR.
string_view trim(string_view s);

/// The whole of s as a number in `base`; nullopt when empty, partial or out of range.
template <typename T>
std::optional<T> to_num(string_view s, int base = 10) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

/// "PCI:0000:19:00", "0000:19:00", "0000:02:00.0", "00000000:3B:00.0" ->
/// "0000:19:00.0"-style; nullopt when malformed.
std::optional<std::string> canonical_bus(string_view s);

/// The first "DDDD:BB:DD[.F]" (domain of 4 or 8 hex digits) anywhere in s.
std::optional<std::string> find_bus(string_view s);

/// What a line's prefix says about when it was logged.
struct Stamp {
  std::optional<double> mono;
  std::optional<int64_t> unix_s;
  std::optional<std::string> text;
};

/// Timestamp from everything before the message (any transport prefix).
Stamp parse_stamp(string_view prefix);

/// Seconds since boot when plausible (finite, 0..1e10).
std::optional<double> plausible_uptime(double s);

struct KmsgHeader {
  uint64_t seq = 0;
  uint64_t usec = 0;
  size_t msg_start = 0;
};

/// "prio,seq,usec,flags[,...];" at the start of a /dev/kmsg record.
std::optional<KmsgHeader> parse_kmsg_header(string_view line);

/// "\x0a" and friends in a kmsg message back to bytes.
std::string unescape_kmsg(string_view s);

/// " KEY=value" dictionary lines after a kmsg record.
bool is_kmsg_dict(string_view line);

}  // namespace gt::klog
