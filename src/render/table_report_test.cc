#include "render/table_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "render/golden.h"
#include "render/test_snapshot.h"

namespace gt {
namespace {

std::string render(const Report& s, TableOptions o = {}) {
  std::ostringstream out;
  render_table(s, o, out);
  return out.str();
}

TEST(TableReport, MatchesGolden) { expect_golden("snapshot.txt", render(make_test_report())); }

TEST(TableReport, WideMatchesGolden) {
  TableOptions o;
  o.wide = true;
  expect_golden("snapshot-wide.txt", render(make_test_report(), o));
}

TEST(TableReport, FitsOneHundredColumnsWithEightGpus) {
  Report s = make_test_report();
  s.snapshot.gpus.resize(1);
  for (uint32_t i = 1; i < 8; ++i) {
    GpuState g = s.snapshot.gpus[0];
    g.index = i;
    s.snapshot.gpus.push_back(g);
  }
  s.snapshot.gpu_count = 8;
  std::string text = render(s);
  std::istringstream lines(text);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 100u) << line;
    if (line.find("GiB") != std::string::npos || line.find("/95.6G") != std::string::npos) ++rows;
  }
  EXPECT_GE(rows, 16);  // 8 GPU rows and 8 process rows
  // What matters is never cut: the owner and the process name.
  EXPECT_NE(text.find("unit sglang.service"), std::string::npos);
  EXPECT_NE(text.find("sglang::scheduler_TP0"), std::string::npos);
}

TEST(TableReport, NoColourUnlessAsked) {
  EXPECT_EQ(render(make_test_report()).find('\033'), std::string::npos);
  TableOptions o;
  o.color = true;
  EXPECT_NE(render(make_test_report(), o).find('\033'), std::string::npos);
}

TEST(TableReport, NvmlFailureIsOneClearLine) {
  Report s;
  s.snapshot.nvml.error_message = "no NVIDIA driver: the NVML library cannot be loaded";
  s.verdict = Severity::kCritical;
  std::string text = render(s);
  std::istringstream lines(text);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(first.rfind("CRITICAL", 0), 0u) << text;
  EXPECT_EQ(second.rfind("gpu-triage: no NVIDIA driver", 0), 0u) << text;
}

// No NVIDIA GPU at all (issue 12): the whole report is one line.
TEST(TableReport, NoGpuAtAllIsOneLine) {
  Report r;
  r.could_not_check = true;
  r.exit_code = 3;
  r.snapshot.nvml.error_message =
      "no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, no NVML library";
  EXPECT_EQ(render(r),
            "UNKNOWN  no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, no "
            "NVML library  (exit 3)\n");
}

// A note (info: a clock nothing disciplines) stays out of that one line; a
// warning still shows under it (issue 21).
TEST(TableReport, NoGpuLineIgnoresNotesButNotWarnings) {
  Report r;
  r.could_not_check = true;
  r.exit_code = 3;
  r.snapshot.nvml.error_message = "no NVIDIA GPU on this machine: nothing on the PCI bus";
  Finding note;
  note.id = "clock.unsynchronised";
  note.severity = Severity::kInfo;
  note.title = "The clock is not synchronised by NTP here";
  r.findings.push_back(note);
  EXPECT_EQ(render(r),
            "UNKNOWN  no NVIDIA GPU on this machine: nothing on the PCI bus  (exit 3)\n");
  Finding warning = note;
  warning.severity = Severity::kWarning;
  warning.title = "NTP is configured but the clock is not synchronised";
  r.findings.push_back(warning);
  std::string text = render(r);
  EXPECT_NE(text.find("NTP is configured"), std::string::npos) << text;
  EXPECT_EQ(text.find("not synchronised by NTP here"), std::string::npos) << text;
}

// Every path asked about has its line, fine or not (issue 12).
TEST(TableReport, ALinePerPathEvenWhenFine) {
  std::string text = render(make_test_report());
  for (const char* path : {"\n  /   ", "\n  /data   ", "\n  /scratch  "})
    EXPECT_NE(text.find(path), std::string::npos) << path << " in\n" << text;
  EXPECT_NE(text.find("30.0M of 32.8M inodes free"), std::string::npos);
}

Report eight_gpus() {
  Report s = make_test_report();
  s.snapshot.gpus.resize(1);
  for (uint32_t i = 1; i < 8; ++i) {
    GpuState g = s.snapshot.gpus[0];
    g.index = i;
    s.snapshot.gpus.push_back(g);
  }
  s.snapshot.gpu_count = 8;
  return s;
}

size_t longest_line(const std::string& text) {
  std::istringstream lines(text);
  size_t n = 0;
  for (std::string line; std::getline(lines, line);) n = std::max(n, line.size());
  return n;
}

// Issue 25: an 80-column console gets 80 columns; the columns go in the
// documented order (PM, then PS: enough here) and what matters stays.
TEST(TableReport, FitsEightyColumnsByDroppingColumnsInOrder) {
  TableOptions o;
  o.width = 80;
  std::string text = render(eight_gpus(), o);
  EXPECT_LE(longest_line(text), 80u) << text;
  EXPECT_EQ(text.find(" PM"), std::string::npos) << text;
  EXPECT_EQ(text.find(" PS "), std::string::npos) << text;
  EXPECT_NE(text.find("PCIE"), std::string::npos) << text;
  EXPECT_NE(text.find("70.6/95.6G 74%"), std::string::npos) << text;
  EXPECT_NE(text.find("unit sglang.service"), std::string::npos);
  // At 100 columns everything fits; --wide keeps every column whatever the width.
  o.width = 100;
  EXPECT_NE(render(eight_gpus(), o).find(" PS PCIE      PM"), std::string::npos);
  o.width = 80;
  o.wide = true;
  EXPECT_NE(render(eight_gpus(), o).find(" PS PCIE      PM"), std::string::npos);
}

// Memory used and the GPU's busy time have headers that cannot be read as
// the memory controller's load.
TEST(TableReport, HeadersSayWhatTheyMeasure) {
  std::string text = render(make_test_report());
  EXPECT_NE(text.find("MEMORY USED      GPU BUSY"), std::string::npos) << text;
  EXPECT_EQ(text.find("UTIL a/m"), std::string::npos) << text;
}

// MIG devices are listed under their GPU with their own memory.
TEST(TableReport, MigDevicesUnderTheirGpu) {
  Report s = make_test_report();
  MigDevice m;
  m.index = 0;
  m.gpu_instance_id = 1;
  m.compute_instance_id = 0;
  m.name = "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 2g.48gb";
  m.memory_total_bytes = 48ull << 30;
  m.memory_used_bytes = 3ull << 30;
  s.snapshot.gpus[0].mig_devices = std::vector<MigDevice>{m};
  std::string text = render(s);
  size_t gpu0 = text.find("\n  0 ok");
  size_t mig = text.find("\n    MIG 2g.48gb  GI 1 CI 0 ");
  size_t gpu1 = text.find("\n  1 lost");
  ASSERT_NE(mig, std::string::npos) << text;
  EXPECT_LT(gpu0, mig);
  EXPECT_LT(mig, gpu1);
  EXPECT_NE(text.substr(mig, gpu1 - mig).find(" 3.0/48.0G"), std::string::npos) << text;
}

TEST(TableReport, LongCommandsBreakOutsideQuotesAndStillPaste) {
  Report s = make_test_report();
  s.plan.resize(1);
  s.plan[0].commands = {
      "gpu-triage data '/data/my jobs/run 0412/hidden states' --expect 37312 --deep "
      "--move-bad-to '/data/my jobs/run 0412/hidden states.bad'"};
  TableOptions o;
  o.width = 80;
  std::string text = render(s, o);
  EXPECT_NE(
      text.find("      $ gpu-triage data '/data/my jobs/run 0412/hidden states' --expect 37312 \\\n"
                "          --deep --move-bad-to '/data/my jobs/run 0412/hidden states.bad'\n"),
      std::string::npos)
      << text;
}

TEST(TableReport, FormatBytes) {
  EXPECT_EQ(format_bytes(uint64_t{75800000000}), "70.6 GiB");
  EXPECT_EQ(format_bytes(uint64_t{512} << 20), "512 MiB");
  EXPECT_EQ(format_bytes(uint64_t{100}), "100 B");
}

}  // namespace
}  // namespace gt
