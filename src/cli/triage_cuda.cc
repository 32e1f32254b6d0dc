#include "cli/triage_cuda.h"

#include <algorithm>

#include "checks/cuda_probe.h"
#include "checks/plan.h"
#include "checks/registry.h"
#include "sources/cuda_driver/probe_run.h"
#include "util/env.h"

namespace gt {

void add_cuda_probe(Report& report, bool npd) {
  CudaProbeOptions o;
  // The seam for issue 34's resolver, as in cmd_cuda.cc's cuda_library().
  o.library = env_or("GPU_TRIAGE_CUDA_LIB", "libcuda.so.1");
  o.memory_bytes = 256ull << 20;
  o.timeout = std::chrono::seconds(10);
  if (!report.snapshot.nvml.initialized) return;  // NVML's own findings say why
  CudaProbeReport probe = probe_cuda(report.snapshot, std::nullopt, o);
  std::vector<Finding> found = cuda_probe_findings(probe, report.snapshot);
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
