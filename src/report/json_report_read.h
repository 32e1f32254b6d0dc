// Reading a report back from its JSON (docs/json.md): the inverse of
// report_to_json, so a saved report or a remote host's `gpu-triage --json`
// answer becomes the typed Report the rest of the tool works on.
//
// report_from_json(report_to_json(r)) == r for every report gpu-triage
// makes, with two exceptions the JSON does not carry by design: a
// capture's nvml.loaded / nvml.initialized (null there: this machine's
// NVML was not asked; read back as false), and a kernel-log event's
// decoded fields under one name twice (an object keeps the last).
//
// Another schema or schema_version, a value of the wrong type, an integer
// out of its field's range or a time not in the form we write is an Error
// that names the key; unknown keys are ignored; an absent key keeps the
// model's default (unknown where the model has an optional).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "model/report.h"
#include "util/result.h"

namespace gt {

Result<Report> report_from_json(const nlohmann::ordered_json& j);

/// Parses `text` (nesting bounded, util/json_depth.h), then report_from_json.
Result<Report> report_from_json_text(std::string_view text);

}  // namespace gt
