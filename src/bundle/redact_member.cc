#include "bundle/redact_member.h"

#include "sources/kernel_log/compressed.h"
#include "util/gzip.h"
#include "util/json_depth.h"
#include "util/json_text.h"
#include "util/redact.h"

namespace gt {
namespace {

RedactedMember redact_gzip(TreeEntry e) {
  RedactedMember out;
  klog::Inflated in =
      klog::inflate_log(e.bytes, klog::Compression::kGzip, e.name, kGzipTextCap, true);
  if (in.error || in.cut) {
    out.left_out = e.name + " left out, not stored unredacted: " +
                   (in.error ? *in.error : "it decompresses to more than 128 MiB");
    return out;
  }
  RedactedText r = redact_secrets(in.data);
  out.what = std::move(r.what);
  if (!out.what.empty()) e.bytes = gzip_bytes(r.text);  // unchanged bytes stay as written
  out.entry = std::move(e);
  return out;
}

}  // namespace

namespace {

/// Docker's config.v2.json keeps the container's whole environment
/// (Config.Env), of which the tool reads only PATH: every other value is
/// replaced, whatever its name, so a credential under a name the rule does
/// not know never leaves. Text that is not JSON goes through the rule alone.
void redact_docker_env(TreeEntry& e, std::vector<std::string>& what) {
  if (e.type != TreeEntry::Type::kFile || !e.name.starts_with("root/var/lib/docker/containers/") ||
      !e.name.ends_with("/config.v2.json"))
    return;
  std::string error;
  std::optional<nlohmann::ordered_json> j = try_parse_json<nlohmann::ordered_json>(e.bytes, error);
  if (!j || !j->is_object() || !j->contains("Config") || !(*j)["Config"].is_object()) return;
  nlohmann::ordered_json& env = (*j)["Config"]["Env"];
  if (!env.is_array()) return;
  size_t n = 0;
  for (nlohmann::ordered_json& v : env)
    if (v.is_string() && !v.get_ref<const std::string&>().starts_with("PATH=")) {
      const std::string s = v.get<std::string>();
      v = s.substr(0, s.find('=')) + "=<redacted>";
      ++n;
    }
  if (n == 0) return;
  e.bytes = json_text(*j);
  what.push_back("Config.Env: every value but PATH");
}

}  // namespace

RedactedMember redact_member(TreeEntry e) {
  if (e.type == TreeEntry::Type::kFile && klog::compression_of(e.bytes) == klog::Compression::kGzip)
    return redact_gzip(std::move(e));
  RedactedMember out;
  redact_docker_env(e, out.what);
  std::string& text = e.type == TreeEntry::Type::kLink ? e.target : e.bytes;
  if (e.type != TreeEntry::Type::kFolder) {
    RedactedText r = redact_secrets(text);
    text = std::move(r.text);
    out.what.insert(out.what.end(), r.what.begin(), r.what.end());
  }
  out.entry = std::move(e);
  return out;
}

}  // namespace gt
