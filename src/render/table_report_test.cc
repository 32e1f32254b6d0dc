#include "render/table_report.h"

#include <gtest/gtest.h>

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
    if (line.find("GiB") != std::string::npos) ++rows;
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

TEST(TableReport, FormatBytes) {
  EXPECT_EQ(format_bytes(uint64_t{75800000000}), "70.6 GiB");
  EXPECT_EQ(format_bytes(uint64_t{512} << 20), "512 MiB");
  EXPECT_EQ(format_bytes(uint64_t{100}), "100 B");
}

}  // namespace
}  // namespace gt
