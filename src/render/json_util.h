// Small helpers the JSON renderers share: unknown is null, never 0.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

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

/// "0x" and `digits` upper-case hex digits, or null.
inline J hex_opt(const std::optional<uint64_t>& v, int digits) {
  if (!v) return nullptr;
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(*v));
  return buf;
}

}  // namespace gt::json_util
