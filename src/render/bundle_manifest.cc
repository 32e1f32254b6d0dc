#include "render/bundle_manifest.h"

#include <nlohmann/json.hpp>

#include "report/json_report.h"
#include "util/byte_units.h"
#include "util/json_text.h"
#include "util/terminal_text.h"

namespace gt {

using J = nlohmann::ordered_json;

std::string render_bundle_manifest(const BundleManifest& m) {
  J members = J::array();
  for (const BundleMember& b : m.members)
    members.push_back({{"name", b.name}, {"size_bytes", b.size_bytes}, {"sha256", b.sha256}});
  J collectors = J::array();
  for (const CollectorOutcome& c : m.collectors) {
    J o = {{"name", c.name}, {"outcome", collector_end_name(c.end)}, {"seconds", c.seconds}};
    o["deadline_s"] = c.deadline_s ? J(*c.deadline_s) : J(nullptr);
    o["detail"] = c.detail;
    collectors.push_back(std::move(o));
  }
  J redactions = J::array();
  for (const Redaction& r : m.redactions)
    redactions.push_back({{"member", r.member}, {"what", r.what}});
  J cuts = J::array();
  for (const BundleCut& c : m.cuts)
    cuts.push_back({{"member", c.member},
                    {"kept_bytes", c.kept_bytes},
                    {"dropped_bytes", c.dropped_bytes},
                    {"why", c.why}});
  J j = {{"schema", "gpu-triage/bundle"},
         {"version", 1},
         {"tool_version", m.tool_version},
         {"host", m.host ? J(*m.host) : J(nullptr)},
         {"created_unix_ms", m.created_unix_ms},
         {"root", m.root},
         {"redacted", m.redacted},
         {"members", members},
         {"collectors", collectors},
         {"redactions", redactions},
         {"cuts", cuts},
         {"notes", m.notes}};
  return json_text(j, 2) + "\n";
}

std::string render_nvml_answers(const Report& report) {
  const J snap = snapshot_to_json(report.snapshot);
  J j = {{"schema", "gpu-triage/nvml-answers"}, {"version", 1}};
  for (const char* key : {"source", "collected_at_unix_ms", "nvml", "gpus"})
    if (snap.contains(key)) j[key] = snap[key];
  return json_text(j, 2) + "\n";
}

std::string render_bundle_written(const std::string& file, uint64_t size_bytes,
                                  const BundleManifest& m) {
  std::string out = "gpu-triage bundle: wrote " + for_terminal(file) + " (" +
                    std::to_string(m.members.size() + 1) + " members, " + format_bytes(size_bytes) +
                    ")\n";
  for (const CollectorOutcome& c : m.collectors)
    if (c.end == CollectorEnd::kTimedOut || c.end == CollectorEnd::kRefused)
      out +=
          "  " + c.name + ": " + collector_end_name(c.end) + " (" + for_terminal(c.detail) + ")\n";
  return out;
}

}  // namespace gt
