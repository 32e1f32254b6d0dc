#include "cli/triage_cuda.h"

#include <algorithm>

#include "checks/checks.h"
#include "checks/cuda_probe.h"
#include "checks/plan.h"
#include "checks/registry.h"
#include "collect/collect.h"
#include "sources/cuda/libcuda_for_new_job.h"
#include "sources/cuda_driver/probe_run.h"
#include "util/env.h"

namespace gt {

void add_cuda_probe(Report& report, const std::string& root, bool npd) {
  CudaProbeOptions o;
  // The library a new job would load (the readiness stage's search).
  o.library = libcuda_to_probe("", FsRoot(root));
  o.memory_bytes = 256ull << 20;
  o.timeout = std::chrono::seconds(10);
  if (!report.snapshot.nvml.initialized) return;  // NVML's own findings say why
  CudaProbeReport probe = probe_cuda(report.snapshot, std::nullopt, o);
  std::vector<Finding> found = cuda_probe_findings(probe, report.snapshot);
  if (make_check_options(std::nullopt, report.snapshot.source).running_as_root) drop_sudo(found);
  report.cuda_probe = probe;
  std::vector<Finding>& f = report.findings;
  f.insert(f.end(), found.begin(), found.end());
  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  report.verdict = verdict_of(f);
  report.plan = make_plan(report);
  report.exit_code = verdict_exit_code(report_verdict(report), npd);
}

}  // namespace gt
