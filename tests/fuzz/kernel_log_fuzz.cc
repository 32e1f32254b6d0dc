// Kernel-log text (dmesg, journalctl, syslog, --kernel-log FILE): parse it,
// then judge a snapshot that carries it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/kernel_log/kernel_log.h"

GT_FUZZ_TARGET(kernel_log) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::ParsedKernelLog parsed = gt::parse_kernel_log_text(text, gt::LogBoot::kFile);
  gt::Report report;
  gt::KernelLog log;
  log.sources.push_back({"fuzz", gt::LogBoot::kFile, true, std::nullopt, parsed.lines});
  log.events = std::move(parsed.events);
  log.unparsed_nvidia_lines = parsed.unparsed_nvidia_lines;
  report.snapshot.kernel_log = std::move(log);
  gt::judge_and_render(report);
  return 0;
}
