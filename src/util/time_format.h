// Formatting Unix times for output.
#pragma once

#include <cstdint>
#include <string>

namespace gt {

/// ISO 8601 in UTC ("2026-11-29T16:15:27Z"), as JSON output uses.
constexpr const char* kIsoUtc = "%Y-%m-%dT%H:%M:%SZ";

/// `unix_s` formatted in UTC with the strftime(3) `format`; "?" for a time
/// outside 1970..9999 (plausible_unix_s). JSON writes such a time as null
/// (json_util::iso_time).
std::string format_utc(int64_t unix_s, const char* format = kIsoUtc);

/// Days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's
/// days_from_civil): a UTC date to Unix days with no time_t or time zone.
/// The caller checks the month and day ranges.
int64_t days_from_civil(int64_t y, int m, int d);

}  // namespace gt
