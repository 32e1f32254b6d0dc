// Rendering `gpu-triage free`: the plan (what would be, or is being,
// stopped and how), the selected GPUs as they are, the outcome of --yes,
// and the JSON document (docs/json.md, "gpu-triage/free").
#pragma once

#include <string>

#include "free/free_act.h"
#include "free/free_plan.h"
#include "model/snapshot.h"

namespace gt {

/// The human output: the plan, then with --yes the outcome of each step and
/// the memory released per GPU, else the GPUs as they are in `before`.
std::string render_free_text(const FreePlan& plan, const FreeResult& result,
                             const NodeSnapshot& before, const FreeOptions& options);

/// The JSON document (indented, newline-terminated); `exit_code` is the
/// command's, recorded in the document.
std::string render_free_json(const FreePlan& plan, const FreeResult& result,
                             const FreeOptions& options, int exit_code);

}  // namespace gt
