// How wide the human report may be: the terminal's width (TIOCGWINSZ on
// standard output), else $COLUMNS, else 100 columns.
#pragma once

#include <optional>
#include <string>

namespace gt {

/// The table's narrowest layout (render/table_report.cc drops columns down
/// to it); a narrower terminal wraps lines.
constexpr int kMinTableWidth = 80;
/// Used when nothing says the width, or what says it is not believable.
constexpr int kDefaultTableWidth = 100;

/// The width to render at from the terminal's answer (nullopt: not a
/// terminal, or the ioctl failed) and $COLUMNS (nullptr: unset). A terminal
/// that reports 0 columns (a serial console before `stty cols`), or either
/// source above 1000 or not a number, is not believed; below 80 is 80.
int table_width_from(std::optional<int> terminal_columns, const char* columns_env);

/// table_width_from(TIOCGWINSZ on `fd`, getenv("COLUMNS")).
int table_width(int fd);

}  // namespace gt
