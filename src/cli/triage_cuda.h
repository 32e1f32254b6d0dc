// `gpu-triage --cuda`: the cuda command's probe run after the triage has
// judged the node, its findings joined to the report's, the verdict, plan
// and exit code judged again with them (the plan puts CUDA's steps in
// PlanStage::kCuda, before the servers and the resume).
#pragma once

#include <string>

#include "model/report.h"

namespace gt {

/// Probes every GPU of report.snapshot (256 MiB each, 10 s each, GPUs in
/// use skipped) and judges the report again with the probe's findings.
void add_cuda_probe(Report& report, const std::string& root, bool npd);

}  // namespace gt
