// The ordered recovery plan: what a careful engineer would do first.
#pragma once

#include <vector>

#include "model/report.h"
#include "util/index_list.h"

namespace gt {

/// Builds the numbered steps from report.findings (already judged):
/// a broken driver first, then lost or missing GPUs, hardware errors, the
/// state of the GPUs, version splits, memory holders (grouped by owner),
/// performance and disk, the kernel log, and last the job's own data.
std::vector<PlanStep> make_plan(const Report& report);

}  // namespace gt
