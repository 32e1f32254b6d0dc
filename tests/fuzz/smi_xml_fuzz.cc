// nvidia-smi -q -x captures (--smi-xml, --host): parse, apply, judge, render.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report_pipeline.h"
#include "sources/smi_xml/smi_xml_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::Result<gt::SmiXml> xml = gt::parse_smi_xml(text);
  if (!xml.ok()) return 0;
  gt::Report report;
  gt::apply_smi_xml(std::move(xml.value()), report.snapshot);
  gt::judge_and_render(report);
  return 0;
}
