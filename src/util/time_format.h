// Formatting Unix times for output.
#pragma once

#include <cstdint>
#include <string>

namespace gt {

/// ISO 8601 in UTC ("2026-11-29T16:15:27Z"), as JSON output uses.
constexpr const char* kIsoUtc = "%Y-%m-%dT%H:%M:%SZ";

/// `unix_s` formatted in UTC with the strftime(3) `format`.
std::string format_utc(int64_t unix_s, const char* format = kIsoUtc);

}  // namespace gt
