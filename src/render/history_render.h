// Rendering `gpu-triage history`: the record across boots as text or JSON
// (the record file's own document, docs/json.md), and the line that says
// what --clear did.
#pragma once

#include <string>

#include "history/record.h"

namespace gt {

/// The boots and each GPU's recorded findings; only `gpu` (a UUID) when
/// it is not empty.
std::string render_history_text(const GpuHistory& h, const std::string& gpu);

/// The record as JSON (indented, newline-terminated), only `gpu` when it is
/// not empty.
std::string render_history_json(GpuHistory h, const std::string& gpu);

/// What --clear did to `file`: the whole record (`gpu` empty), one GPU's,
/// or nothing when that GPU had no record (`removed` 0).
std::string render_history_cleared(const std::string& file, const std::string& gpu, size_t removed);

}  // namespace gt
