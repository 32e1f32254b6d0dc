#include "data/manifest_check.h"

#include <gtest/gtest.h>

namespace gt {
namespace manifest_check_test {

DirScan scan_of(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& f) {
  DirScan s;
  s.dirs = {dir};
  for (const auto& [rel, digest] : f) {
    ScannedFile sf;
    sf.rel = rel;
    sf.extra = std::make_unique<FileExtra>();
    sf.extra->digest = digest;
    s.files.push_back(std::move(sf));
  }
  return s;
}

std::string hex(char c) { return std::string(32, c); }

TEST(DataManifestCheckTest, NamesAreRelativeSoAMovedTreeVerifies) {
  DirScan written =
      scan_of("hidden", {{"rows_0-2/data_0.ckpt", hex('a')}, {"data_1.ckpt", hex('b')}});
  std::string text = manifest_text(written);
  EXPECT_NE(text.find("# dir: "), std::string::npos);
  EXPECT_NE(text.find(hex('a') + "  rows_0-2/data_0.ckpt\n"), std::string::npos) << text;
  Result<Manifest> m = parse_manifest(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->dirs.size(), 1u);
  DirScan moved =
      scan_of("/mnt/new/hidden", {{"rows_0-2/data_0.ckpt", hex('a')}, {"data_1.ckpt", hex('c')}});
  ManifestCheck c = check_manifest(*m, moved);
  EXPECT_TRUE(c.diff.missing.empty());
  EXPECT_TRUE(c.diff.added.empty());
  EXPECT_EQ(c.diff.changed, std::vector<std::string>{"/mnt/new/hidden/data_1.ckpt"});
  EXPECT_EQ(c.changed, std::vector<uint32_t>{1});
}

TEST(DataManifestCheckTest, OldManifestsWithTypedPathsAreStripped) {
  DirScan now = scan_of("/tmp/x/hidden",
                        {{"rows_0-2/data_0.ckpt", hex('a')}, {"rows_0-2/data_1.ckpt", hex('b')}});
  for (std::string prefix : {"hidden/", "/data/hidden/"}) {
    Result<Manifest> m = parse_manifest(manifest_line(hex('a'), prefix + "rows_0-2/data_0.ckpt") +
                                        manifest_line(hex('b'), prefix + "rows_0-2/data_1.ckpt"));
    ASSERT_TRUE(m);
    ManifestCheck c = check_manifest(*m, now);
    EXPECT_TRUE(c.diff.missing.empty()) << prefix;
    EXPECT_TRUE(c.diff.added.empty()) << prefix;
    EXPECT_TRUE(c.diff.changed.empty()) << prefix;
    ASSERT_EQ(c.diff.notes.size(), 1u);
    EXPECT_NE(c.diff.notes[0].find("'" + prefix + "'"), std::string::npos);
  }
}

TEST(DataManifestCheckTest, BadLinesAndOtherAlgorithmsAreNotedNotFatal) {
  Result<Manifest> m = parse_manifest(manifest_line(hex('a'), "data_0.ckpt") + "garbage\n" +
                                      manifest_line(std::string(40, 'f'), "data_1.ckpt"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->bad_lines.size(), 2u);
  EXPECT_NE(m->bad_lines[0].find("line 2"), std::string::npos);
  EXPECT_NE(m->bad_lines[1].find("40 hex digits"), std::string::npos);
  // sha1sum output: no line of a known algorithm.
  Result<Manifest> sha1 = parse_manifest(manifest_line(std::string(40, 'f'), "data_1.ckpt"));
  ASSERT_FALSE(sha1);
  EXPECT_NE(sha1.error().message.find("no line is a digest of a known algorithm"),
            std::string::npos);
  // md5sum's digests have xxh128's length: every file differs, and we say why.
  DirScan now = scan_of("d", {{"a", hex('1')}, {"b", hex('2')}});
  Result<Manifest> md5 =
      parse_manifest(manifest_line(hex('9'), "a") + manifest_line(hex('8'), "b"));
  ManifestCheck c = check_manifest(*md5, now);
  ASSERT_EQ(c.diff.notes.size(), 1u);
  EXPECT_NE(c.diff.notes[0].find("another algorithm"), std::string::npos);
}

}  // namespace manifest_check_test
}  // namespace gt
