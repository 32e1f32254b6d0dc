// The ordered recovery plan: what a careful engineer would do first.
#pragma once

#include <vector>

#include "model/report.h"
#include "util/index_list.h"

namespace gt {

/// Builds the numbered steps from report.findings (already judged), in the
/// order of what blocks getting the node back to work: a broken driver,
/// lost or missing GPUs and other critical faults, hardware that needs a
/// reset or a reseat, what holds the GPUs (one step per idle server), disk
/// space, then hygiene (version split, links, clocks, persistence, the
/// kernel log). A positive (ok) finding or a note (info) is never a step,
/// and no step is generic: each comes from a finding.
std::vector<PlanStep> make_plan(const Report& report);

}  // namespace gt
