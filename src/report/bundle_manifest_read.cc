#include "report/bundle_manifest_read.h"

#include <nlohmann/json.hpp>

#include "util/json_depth.h"

namespace gt {

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
