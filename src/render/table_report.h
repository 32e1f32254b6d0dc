// The human report: fits the terminal (TableOptions::width, 80 columns at
// least: render/terminal_width.h) by dropping GPU-table columns in a fixed
// order (table_report.cc, fit_columns; the man page's TABLE WIDTH) and
// wrapping text, without cutting what matters (status, memory, owner; long
// names and command lines are clipped, unless --wide).
#pragma once

#include <ostream>

#include "model/report.h"
#include "util/byte_units.h"

namespace gt {

struct TableOptions {
  bool wide = false;   ///< full names, UUIDs and command lines
  bool color = false;  ///< ANSI colour (only on a terminal, never with NO_COLOR)
  int width = 100;     ///< columns to fit when not wide (80 or more)
};

/// Writes the report: verdict line, GPUs, processes, findings, plan.
void render_table(const Report& report, const TableOptions& options, std::ostream& out);

}  // namespace gt
