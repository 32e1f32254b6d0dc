#include "bundle/redact_member.h"

#include <gtest/gtest.h>

#include "sources/kernel_log/compressed.h"
#include "util/gzip.h"

namespace gt {
namespace {

std::string gunzip(const std::string& gz) {
  return klog::inflate_log(gz, klog::Compression::kGzip, "t", 1 << 20).data;
}

TEST(RedactMember, AGzipMemberIsRedactedInsideAndStaysGzip) {
  const std::string log = "journal: vllm serve /models/m --api-key -xBUG1 --port 8000\n";
  RedactedMember r =
      redact_member({TreeEntry::Type::kFile, "bug-report/x.log.gz", gzip_bytes(log), {}});
  ASSERT_TRUE(r.entry);
  const std::string text = gunzip(r.entry->bytes);
  EXPECT_EQ(text, "journal: vllm serve /models/m --api-key <redacted> --port 8000\n");
  EXPECT_EQ(r.what, (std::vector<std::string>{"--api-key"}));
}

TEST(RedactMember, AGzipMemberCutShortIsLeftOutWithTheReason) {
  std::string gz = gzip_bytes(std::string(100000, 'x') + "HF_TOKEN=hf_x\n");
  gz.resize(gz.size() / 2);
  RedactedMember r = redact_member({TreeEntry::Type::kFile, "bug-report/x.log.gz", gz, {}});
  EXPECT_FALSE(r.entry);
  EXPECT_NE(r.left_out.find("bug-report/x.log.gz left out"), std::string::npos) << r.left_out;
}

TEST(RedactMember, FilesAndLinks) {
  RedactedMember f = redact_member({TreeEntry::Type::kFile, "a", "TOKEN=t1\nMODE=x\n", {}});
  EXPECT_EQ(f.entry->bytes, "TOKEN=<redacted>\nMODE=x\n");
  RedactedMember l = redact_member({TreeEntry::Type::kLink, "l", {}, "/x?sig=s1"});
  EXPECT_EQ(l.entry->target, "/x?sig=<redacted>");
}

}  // namespace
}  // namespace gt
