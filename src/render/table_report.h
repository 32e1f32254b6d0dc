// The human report: fits 8 GPUs on one 100-column terminal without cutting
// anything that matters (status, memory, owner and process name are never
// truncated; long names and command lines are, unless --wide).
#pragma once

#include <ostream>

#include "model/report.h"
#include "util/byte_units.h"

namespace gt {

struct TableOptions {
  bool wide = false;   ///< full names, UUIDs and command lines
  bool color = false;  ///< ANSI colour (only on a terminal, never with NO_COLOR)
  int width = 100;     ///< columns to fit when not wide
};

/// Writes the report: verdict line, GPUs, processes, findings, plan.
void render_table(const Report& report, const TableOptions& options, std::ostream& out);

}  // namespace gt
