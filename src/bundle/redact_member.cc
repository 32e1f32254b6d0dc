#include "bundle/redact_member.h"

#include "sources/kernel_log/compressed.h"
#include "util/gzip.h"
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

RedactedMember redact_member(TreeEntry e) {
  if (e.type == TreeEntry::Type::kFile && klog::compression_of(e.bytes) == klog::Compression::kGzip)
    return redact_gzip(std::move(e));
  RedactedMember out;
  std::string& text = e.type == TreeEntry::Type::kLink ? e.target : e.bytes;
  if (e.type != TreeEntry::Type::kFolder) {
    RedactedText r = redact_secrets(text);
    text = std::move(r.text);
    out.what = std::move(r.what);
  }
  out.entry = std::move(e);
  return out;
}

}  // namespace gt
