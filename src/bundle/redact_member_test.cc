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

// Issue 52 trial: Docker's config.v2.json keeps the whole environment;
// the tool reads only PATH, so every other value goes, whatever its name.
TEST(RedactMember, DockerConfigKeepsOnlyPathOfTheEnvironment) {
  TreeEntry e{TreeEntry::Type::kFile, "root/var/lib/docker/containers/ab/config.v2.json",
              R"({"Config":{"Env":["MY_APP_CRED=plainvalue-zebra-42","PATH=/usr/bin:/bin",)"
              R"("HF_TOKEN=hf_abc"],"Image":"specforge:kimi"},"Name":"/specforge"})",
              ""};
  RedactedMember r = redact_member(e);
  ASSERT_TRUE(r.entry);
  EXPECT_EQ(r.entry->bytes.find("plainvalue"), std::string::npos) << r.entry->bytes;
  EXPECT_EQ(r.entry->bytes.find("hf_abc"), std::string::npos);
  EXPECT_NE(r.entry->bytes.find("MY_APP_CRED=<redacted>"), std::string::npos);
  EXPECT_NE(r.entry->bytes.find("PATH=/usr/bin:/bin"), std::string::npos);
  EXPECT_NE(r.entry->bytes.find("specforge:kimi"), std::string::npos);
  // The same text elsewhere is left to the rule (an unknown name kept).
  e.name = "root/etc/app.json";
  EXPECT_NE(redact_member(e).entry->bytes.find("plainvalue"), std::string::npos);
}

}  // namespace
}  // namespace gt
