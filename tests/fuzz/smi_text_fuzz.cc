// nvidia-smi's plain-text output and error messages (--host, captures).
// Besides no crash (one long line overflowed std::regex's recursion, issue
// 32), what is kept of the text is bounded: at most kMaxGpus GPUs, each
// quoted line clipped, a version no longer than a version.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "model/limits.h"
#include "report_pipeline.h"
#include "sources/smi_xml/smi_text.h"

namespace smi_text_fuzz {

constexpr size_t kMaxKeptBytes = 1024;  // a clipped line with its prefix and count

bool bounded(const gt::SmiTextFailure& f) {
  if (f.gpus.size() > gt::kMaxGpus) return false;
  for (const gt::GpuState& g : f.gpus)
    if (g.status_detail.value_or("").size() > kMaxKeptBytes) return false;
  return f.nvml.error_message.value_or("").size() <= kMaxKeptBytes &&
         f.nvml.library_version.value_or("").size() <= 32;
}

}  // namespace smi_text_fuzz

GT_FUZZ_TARGET(smi_text) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (std::optional<gt::SmiTextFailure> f = gt::parse_smi_error_text(text);
      f && !smi_text_fuzz::bounded(*f))
    __builtin_trap();
  gt::Report report;
  if (gt::fill_snapshot_from_smi_output(text, report.snapshot).ok()) gt::judge_and_render(report);
  return 0;
}
