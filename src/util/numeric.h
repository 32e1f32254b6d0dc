// Checked conversions of numbers read from text. A float cast to an integer
// type it does not fit is undefined behaviour ([conv.fpint]), and strtod
// happily returns inf, nan and 1e308 for "inf", "nan" and "1e308". Every
// value parsed from text goes through here before it becomes an integer: a
// value that is not finite, or outside the stated bounds, is unknown
// (nullopt), never 0 or INT_MIN.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace gt {

/// `v` converted to T (truncated toward zero) when it is finite, within
/// [lo, hi] and within T's range (checked too, so loose bounds stay safe);
/// nullopt otherwise.
template <typename T>
std::optional<T> checked_cast(double v, double lo, double hi) {
  static_assert(std::is_integral_v<T>);
  // T's range as doubles, both exact: min is -2^digits or 0, and the upper
  // bound is 2^digits, excluded (max itself rounds up to it for 64 bits).
  constexpr double kTMin = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double kTMaxExclusive =
      2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1);  // 2^digits
  if (!std::isfinite(v) || !(v >= lo) || !(v <= hi)) return std::nullopt;
  if (v < kTMin || v >= kTMaxExclusive) return std::nullopt;
  return static_cast<T>(v);
}

/// checked_cast within T's own range.
template <typename T>
std::optional<T> checked_cast(double v) {
  return checked_cast<T>(v, static_cast<double>(std::numeric_limits<T>::lowest()),
                         static_cast<double>(std::numeric_limits<T>::max()));
}

/// `v` when it is finite and within [lo, hi]; nullopt otherwise.
inline std::optional<double> checked_double(double v, double lo, double hi) {
  if (!std::isfinite(v) || !(v >= lo) || !(v <= hi)) return std::nullopt;
  return v;
}

/// 9999-12-31T23:59:59Z: the latest Unix time (s) any clock, btime or record
/// this tool reads can plausibly hold. Two such times (or one and a
/// duration under it) add and subtract without overflow.
inline constexpr int64_t kMaxUnixS = 253402300799;

/// `v` when it is a Unix time in 1970..9999 (kMaxUnixS); nullopt otherwise:
/// a clock, btime or timestamp from outside is range-checked here before
/// any arithmetic on it.
inline std::optional<int64_t> plausible_unix_s(std::optional<int64_t> v) {
  if (!v || *v < 0 || *v > kMaxUnixS) return std::nullopt;
  return v;
}

/// The whole of `s` as a decimal T (no sign for unsigned T, no blanks);
/// nullopt when it is empty, has other characters, or does not fit T.
template <typename T>
std::optional<T> parse_int(std::string_view s, int base = 10) {
  static_assert(std::is_integral_v<T>);
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace gt
