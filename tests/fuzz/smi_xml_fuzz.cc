// nvidia-smi -q -x captures (--smi-xml, --host): parse, apply, judge, render.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/smi_xml/smi_xml_parser.h"

GT_FUZZ_TARGET(smi_xml) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::Result<gt::SmiXml> xml = gt::parse_smi_xml(text);
  if (!xml.ok()) return 0;
  gt::Report report;
  gt::apply_smi_xml(std::move(xml.value()), report.snapshot);
  gt::judge_and_render(report);
  return 0;
}
