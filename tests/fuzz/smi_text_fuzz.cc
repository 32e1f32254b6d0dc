// nvidia-smi's plain-text output and error messages (--host, captures).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/smi_xml/smi_text.h"

GT_FUZZ_TARGET(smi_text) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::parse_smi_error_text(text);
  gt::Report report;
  if (gt::fill_snapshot_from_smi_output(text, report.snapshot).ok()) gt::judge_and_render(report);
  return 0;
}
