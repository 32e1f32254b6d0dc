#include "render/bundle_manifest.h"

#include <nlohmann/json.hpp>

#include "render/json_report.h"
#include "util/byte_units.h"
#include "util/json_depth.h"
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

std::vector<std::string> manifest_cut_members(std::string_view manifest_json) {
  std::string why;
  std::optional<nlohmann::json> m = try_parse_json(manifest_json, why);
  std::vector<std::string> out;
  if (!m || !m->is_object() || !m->contains("cuts") || !(*m)["cuts"].is_array()) return out;
  for (const nlohmann::json& c : (*m)["cuts"])
    if (c.is_object() && c.contains("member") && c["member"].is_string())
      out.push_back(c["member"].get<std::string>());
  return out;
}

namespace {

/// One "members" entry, or why it is not one.
Result<BundleMember> member_of(const nlohmann::json& m, size_t i) {
  const std::string at = "manifest.json: members[" + std::to_string(i) + "]";
  if (!m.is_object() || !m.contains("name") || !m["name"].is_string() ||
      !m.contains("size_bytes") || !m["size_bytes"].is_number_unsigned() || !m.contains("sha256") ||
      !m["sha256"].is_string())
    return Error{ErrorKind::kMalformed, at + ": not {name, size_bytes, sha256}"};
  return BundleMember{m["name"].get<std::string>(), m["size_bytes"].get<uint64_t>(),
                      m["sha256"].get<std::string>()};
}

}  // namespace

Result<std::vector<BundleMember>> manifest_members(std::string_view manifest_json) {
  std::string why;
  std::optional<nlohmann::json> m = try_parse_json(manifest_json, why);
  if (!m) return Error{ErrorKind::kMalformed, "manifest.json: not JSON: " + why.substr(0, 200)};
  if (!m->is_object() || !m->contains("members") || !(*m)["members"].is_array())
    return Error{ErrorKind::kMalformed, "manifest.json: no \"members\" list"};
  std::vector<BundleMember> out;
  const nlohmann::json& list = (*m)["members"];
  for (size_t i = 0; i < list.size(); ++i) {
    Result<BundleMember> b = member_of(list[i], i);
    if (!b) return b.error();
    out.push_back(std::move(*b));
  }
  return out;
}

}  // namespace gt
