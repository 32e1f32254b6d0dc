// Every origin a triage or a fleet reads, chosen here: this node, an
// nvidia-smi capture, a bundle's recorded node, a saved report (a file, or
// a fleet host's gpu-triage --json answer); a fleet host's gathered answer
// is collect/gathered.h. The command line and the fleet name the origin;
// collect/ assembles its snapshot (issue 51).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collect/collect.h"
#include "util/result.h"

namespace gt {

/// Where a triage reads its node from: a bundle (--bundle FILE), an
/// nvidia-smi capture (--smi-xml FILE), else this node.
struct TriageOrigin {
  std::optional<std::string> bundle;
  std::optional<std::string> smi_xml;
};

/// The triage's snapshot from its origin, collected over `stages`, not judged.
Collected collect_origin(const TriageOrigin& from, const CollectInputs& in, Stages stages);

/// A saved `gpu-triage --json` report (at most kMaxCaptureBytes): the report
/// as it was judged, or why it cannot be read, naming the file.
Result<Report> collect_saved_report(const std::string& file);

/// A `gpu-triage --json` report as text (a fleet host's native answer): the
/// report as it was judged there, or the reader's path-aware error.
Result<Report> collect_saved_report_text(std::string_view text);

}  // namespace gt
