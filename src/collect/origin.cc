#include "collect/origin.h"

#include "collect/bundle_replay.h"
#include "report/json_report_read.h"
#include "sources/smi_xml/smi_capture_file.h"
#include "util/read_capped.h"

namespace gt {

Collected collect_origin(const TriageOrigin& from, const CollectInputs& in, Stages stages) {
  if (from.bundle) return replay_bundle(*from.bundle, in, stages);
  if (from.smi_xml) return collect_capture(*from.smi_xml, stages);
  return collect_node(in, stages);
}

Result<Report> collect_saved_report(const std::string& file) {
  Result<std::string> text = read_file_capped(file, kMaxCaptureBytes, "a saved report");
  if (!text) return text.error();
  Result<Report> report = collect_saved_report_text(*text);
  if (!report) return Error{report.error().kind, file + ": " + report.error().message};
  return report;
}

Result<Report> collect_saved_report_text(std::string_view text) {
  return report_from_json_text(text);
}

}  // namespace gt
