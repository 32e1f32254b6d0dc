// Rendering a DataReport: a summary a person reads in five seconds, the bad
// files and the resume set; or JSON (docs/json.md, "gpu-triage data");
// or NUL-separated paths of the bad files (-0).
#pragma once

#include <ostream>
#include <string>

#include "data/analysis.h"

namespace gt {

/// The verdict word of an exit code: OK, WARNING, CRITICAL, UNKNOWN.
const char* data_verdict(ExitCode code);

/// The human report. Long lists are cut at `max_list` entries (0 = all).
void render_data_text(const DataReport& r, std::ostream& out, size_t max_list = 50);

/// The JSON document, invalid UTF-8 in paths replaced (U+FFFD), never thrown.
void render_data_json(const DataReport& r, std::ostream& out);

/// Bad file paths, each followed by a NUL byte (for xargs -0).
void render_data_nul(const DataReport& r, std::ostream& out);

}  // namespace gt
