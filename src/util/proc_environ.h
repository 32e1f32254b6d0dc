// /proc/PID/environ, the one reader: NUL-separated NAME=VALUE entries.
#pragma once

#include <map>
#include <string>

namespace gt {

/// The environment as a map; at most 4096 entries. As getenv(3) does, the
/// first entry of a name wins when a name repeats; an entry without '=' or
/// with an empty name is skipped.
std::map<std::string, std::string> parse_environ(const std::string& text);

}  // namespace gt
