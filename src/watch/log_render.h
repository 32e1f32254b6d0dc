// watch's output when stdout is not a terminal (or --log): one line per
// change, with its UTC time, for tmux logs and `| tee`; --json: one JSON
// object per line (JSON Lines), the same fields.
//
//   2026-12-01T10:37:29Z raised critical gpu.xid.79 GPU 3 0000:5d:00.0 [SGLang pid-3141 (TP 8, GPUs
//   0-7)]: GPU fell off the bus
//
// JSON keys: time, change, severity, id, gpu, pci_bus_id, server, path,
// text; an unknown value is null.
#pragma once

#include <ostream>

#include "watch/changes.h"

namespace gt {

/// One text line (newline included).
void render_change_line(const Change& c, std::ostream& out);
/// One JSON object on one line (newline included).
void render_change_json(const Change& c, std::ostream& out);

}  // namespace gt
