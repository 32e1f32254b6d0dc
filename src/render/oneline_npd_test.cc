#include <gtest/gtest.h>

#include <sstream>

#include "render/oneline_report.h"
#include "render/test_snapshot.h"

namespace gt {
namespace oneline_npd_test {

std::string npd_line(const Report& r) {
  std::ostringstream out;
  render_oneline_npd(r, out);
  std::string s = out.str();
  EXPECT_EQ(s.back(), '\n');
  s.pop_back();
  return s;
}

Finding finding(const std::string& id, Severity sev) {
  Finding f;
  f.id = id;
  f.severity = sev;
  return f;
}

// gpus=1/2: GPU 1 is lost, so one of the two on the bus answers.
TEST(OnelineNpd, WorstIdsFirstWithoutDriver) {
  EXPECT_EQ(npd_line(make_test_report()),
            "CRITICAL gpus=1/2 critical=1 warning=1 ids=gpu.lost,memory.held_idle");
}

TEST(OnelineNpd, AfterCrashFitsWhole) {
  Report r = make_test_report();
  r.verdict = Severity::kWarning;
  r.snapshot.gpu_count = 8;
  r.snapshot.gpus.assign(8, r.snapshot.gpus.front());
  r.snapshot.pci_devices.resize(8);
  r.findings = {finding("cuda.driver_mismatch", Severity::kWarning)};
  for (int i = 0; i < 8; ++i) r.findings.push_back(finding("memory.held_idle", Severity::kWarning));
  EXPECT_EQ(npd_line(r),
            "WARNING gpus=8/8 critical=0 warning=9 ids=cuda.driver_mismatch,memory.held_idle");
}

TEST(OnelineNpd, CutsIdsToFitAndCountsTheRest) {
  Report r = make_test_report();
  r.findings.clear();
  for (const char* id : {"ecc.remap_failure", "gpu.count_mismatch", "gpu.missing_from_nvml",
                         "nvml.version_mismatch", "gpu.unresponsive"})
    r.findings.push_back(finding(id, Severity::kCritical));
  r.findings.push_back(finding("memory.held_idle", Severity::kWarning));
  std::string line = npd_line(r);
  EXPECT_LE(line.size(), 80u) << line;
  EXPECT_EQ(line, "CRITICAL gpus=1/2 critical=5 warning=1 ids=ecc.remap_failure,+5");
}

// The gpus= field counts GPUs that answer: lost, hung and inaccessible ones
// do not; "?" when NVML could not list them; "-" when the bus was not read
// (a capture); 0/0 on a machine with no NVIDIA GPU at all.
TEST(Oneline, GpusCountsAnsweringOverPciBus) {
  Report r = make_test_report();
  std::ostringstream out;
  render_oneline(r, out);
  EXPECT_EQ(out.str().rfind("CRITICAL gpus=1/2 ", 0), 0u) << out.str();
  r.snapshot.gpus[1].status = GpuStatus::kOk;
  out.str("");
  render_oneline(r, out);
  EXPECT_EQ(out.str().rfind("CRITICAL gpus=2/2 ", 0), 0u) << out.str();
  r.snapshot.source = Origin::kCapture;
  out.str("");
  render_oneline(r, out);
  EXPECT_EQ(out.str().rfind("CRITICAL gpus=2/- ", 0), 0u) << out.str();
  Report none;
  none.could_not_check = true;
  out.str("");
  render_oneline(none, out);
  EXPECT_EQ(out.str(), "UNKNOWN gpus=0/0 critical=0 warning=0\n");
  none.could_not_check = false;
  none.snapshot.pci_devices.resize(8);
  out.str("");
  render_oneline(none, out);
  EXPECT_EQ(out.str().rfind("OK gpus=?/8 ", 0), 0u) << out.str();
}

TEST(OnelineNpd, NeverLongerThanTheLimit) {
  Report r = make_test_report();
  r.snapshot.gpu_count = 4000000000u;
  r.snapshot.pci_devices.resize(4000);
  for (int i = 0; i < 5000; ++i)
    r.findings.push_back(finding("x." + std::to_string(i), Severity::kWarning));
  for (size_t limit : {80u, 40u, 10u}) {
    std::ostringstream out;
    render_oneline_npd(r, out, limit);
    EXPECT_LE(out.str().size(), limit + 1) << out.str();
  }
}

}  // namespace oneline_npd_test
}  // namespace gt
