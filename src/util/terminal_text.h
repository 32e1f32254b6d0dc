// The one way a string from outside (a process name or command line, a
// model name, a config value, a unit or file name, a capture's or a remote
// nvidia-smi's words, kernel-log text, an error quoting input) reaches a
// terminal: every text renderer and every error printed to stderr passes it
// through for_terminal(). JSON output does not (its own escaping is exact).
// Its secrets are redacted first (util/redact.h): what a terminal, a text
// report, a Prometheus label or a textfile shows holds none.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace gt {

/// `s` as it may be printed: its secrets redacted (util/redact.h); valid
/// UTF-8 kept; ESC, CR, LF and TAB shown as
/// \e, \r, \n, \t; every other control character (C0, DEL, C1), every byte
/// of a character that reorders or breaks lines (bidi overrides, U+2028,
/// U+2029) and every byte that is not valid UTF-8 shown as \xNN. The result
/// is printable text only, so for_terminal(for_terminal(s)) ==
/// for_terminal(s) (a backslash is kept as it is). At most `max_bytes` of
/// that text are kept (cut between characters), then "... (N more bytes)"
/// counting the bytes of `s` left out: a quote of binary junk stays short.
std::string for_terminal(std::string_view s, size_t max_bytes = std::numeric_limits<size_t>::max());

}  // namespace gt
