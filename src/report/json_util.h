// Small helpers the JSON renderers share: unknown is null, never 0.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "util/numeric.h"
#include "util/time_format.h"

namespace gt::json_util {

using J = nlohmann::ordered_json;

/// The value, or null.
template <typename T>
J opt(const std::optional<T>& v) {
  return v ? J(*v) : J(nullptr);
}

/// The value's word (its enum's one name function), or null.
template <typename E, typename F>
J name_opt(const std::optional<E>& v, F name) {
  return v ? J(name(*v)) : J(nullptr);
}

/// A time as "2026-11-29T16:15:27Z" (format_utc), or null when unknown or
/// outside 1970..9999 (plausible_unix_s): every time gpu-triage writes reads
/// back (json_read::read_time), whatever a clock or /proc said (issue 48).
inline J iso_time(std::optional<int64_t> unix_s) {
  unix_s = plausible_unix_s(unix_s);
  return unix_s ? J(format_utc(*unix_s)) : J(nullptr);
}

/// "0x" and `digits` upper-case hex digits, or null.
inline J hex_opt(const std::optional<uint64_t>& v, int digits) {
  if (!v) return nullptr;
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(*v));
  return buf;
}

}  // namespace gt::json_util
