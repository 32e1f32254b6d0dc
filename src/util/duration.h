// Parsing of human durations for --sample and --timeout ("1s", "500ms", "2.5s").
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "util/result.h"

namespace gt {

/// Parses "<number>[ms|s|m]" (a bare number means seconds) into
/// milliseconds. Malformed or negative input, and anything above 1 day
/// (or not finite: "1e999"), is a kMalformed error that quotes the text.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

/// `d` in whole seconds as text, rounded down and at least 1 ("18" for
/// 18.5 s, "1" for 200 ms): a deadline as a shell command or a message
/// names it.
std::string whole_seconds(std::chrono::milliseconds d);

}  // namespace gt
