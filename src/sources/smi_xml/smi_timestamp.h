// nvidia-smi's <timestamp>: ctime(3)'s form in the C locale,
// "Wed Jun  7 19:32:16 2023" (some copies collapse the day's padding:
// "Mon Aug 7 11:10:06 2023").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gt {

/// Seconds since 1970 of the timestamp read as UTC: the capture carries no
/// time zone (nvidia-smi prints the capturing host's local time), so this is
/// off by that host's UTC offset. Null for any other form or an impossible
/// date (month 13, day 32, hour 24, year before 1970).
std::optional<int64_t> smi_timestamp_unix_s(std::string_view text);

}  // namespace gt
