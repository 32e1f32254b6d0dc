#include "data/resume.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/manifest.h"
#include "util/test_util.h"

namespace gt {
namespace resume_test {

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DataResumeTest, ResumeListIsWrittenAtomicallyOnePerLine) {
  TempTree t;
  std::string path = t.path("/resume.txt");
  ASSERT_TRUE(write_resume_list(path, {{"", 3, 3}, {"", 17, 19}, {"2", 5, 5}}));
  EXPECT_EQ(slurp(path), "3\n17\n18\n19\n2/5\n");
  ASSERT_TRUE(write_resume_list(path, {}));
  EXPECT_EQ(slurp(path), "");
  size_t entries = 0;
  for (auto& e : std::filesystem::directory_iterator(t.path("/"))) (void)e, ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary file left behind
  EXPECT_FALSE(write_resume_list(t.path("/no/such/dir/r.txt"), {}));
}

TEST(DataResumeTest, ResumeListOverTheLimitIsRefusedBeforeWriting) {
  TempTree t;
  std::string path = t.path("/resume.txt");
  Status s = write_resume_list(path, {{"", 0, 4294967294}});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("4294967295 samples to redo is over the limit of 100000000"),
            std::string::npos)
      << s.error().message;
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(write_resume_list(path, {{"", 5, 9}, {"", 1000000, 1000000}}));
  EXPECT_EQ(slurp(path), "5\n6\n7\n8\n9\n1000000\n");
}

TEST(DataResumeTest, MoveOutNeverOverwrites) {
  TempTree t;
  t.write("/data/rows_0-4/data_1.ckpt", "bad one");
  t.write("/bad/rows_0-4/data_1.ckpt", "moved earlier");
  Result<std::string> to =
      move_out(t.path("/data/rows_0-4/data_1.ckpt"), "rows_0-4/data_1.ckpt", t.path("/bad"));
  ASSERT_TRUE(to) << to.error().message;
  EXPECT_EQ(*to, t.path("/bad/rows_0-4/data_1.ckpt.1"));
  EXPECT_EQ(slurp(*to), "bad one");
  EXPECT_EQ(slurp(t.path("/bad/rows_0-4/data_1.ckpt")), "moved earlier");
  EXPECT_FALSE(std::filesystem::exists(t.path("/data/rows_0-4/data_1.ckpt")));
}

TEST(DataResumeTest, PathIsWithin) {
  TempTree t;
  t.write("/data/x", "");
  EXPECT_TRUE(path_is_within(t.path("/data/bad"), t.path("/data")));
  EXPECT_TRUE(path_is_within(t.path("/data"), t.path("/data/")));
  EXPECT_FALSE(path_is_within(t.path("/data-bad"), t.path("/data")));
}

TEST(DataManifestTest, KnownDigests) {
  auto digest = [](HashAlgo a, const std::string& s) {
    std::unique_ptr<Hasher> h = Hasher::make(a);
    h->feed(0, reinterpret_cast<const uint8_t*>(s.data()), s.size());
    FileCheck c;
    h->finish(c);
    return h->hex();
  };
  EXPECT_EQ(digest(HashAlgo::kSha256, "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest(HashAlgo::kCrc32, "123456789"), "cbf43926");
  EXPECT_EQ(digest(HashAlgo::kXxh128, ""), "99aa06d3014798d86001c324468d497f");
}

TEST(DataManifestTest, LinesEscapeLikeSha256sumAndRoundTrip) {
  EXPECT_EQ(manifest_line("ab", "d/x.pt"), "ab  d/x.pt\n");
  EXPECT_EQ(manifest_line("ab", "we\\ird\nname"), "\\ab  we\\\\ird\\nname\n");
  Result<Manifest> m = parse_manifest(manifest_line(std::string(64, 'a'), "we\\ird\nname") +
                                      manifest_line(std::string(64, 'b'), "plain"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->algo, HashAlgo::kSha256);
  EXPECT_EQ(m->digests.at("we\\ird\nname"), std::string(64, 'a'));
  ManifestDiff d = compare_manifest(*m, {{"plain", std::string(64, 'c')}, {"new", "x"}});
  EXPECT_EQ(d.changed, std::vector<std::string>{"plain"});
  EXPECT_EQ(d.missing, std::vector<std::string>{"we\\ird\nname"});
  EXPECT_EQ(d.added, std::vector<std::string>{"new"});
  EXPECT_FALSE(parse_manifest("not a manifest line\n"));
}

// --move-bad-to is checked before anything is scanned or created.
TEST(DataResumeTest, MoveTargetIsCheckedUpFront) {
  TempTree t;
  t.write("/data/d/x.pt", "x");
  t.write("/data/file", "x");
  const std::vector<std::string> dirs = {t.path("/data/d")};
  EXPECT_TRUE(check_move_target(t.path("/data/bad/new/deeper"), dirs));  // can be created
  EXPECT_FALSE(std::filesystem::exists(t.path("/data/bad")));            // ... and is not
  Status inside = check_move_target(t.path("/data/d/bad"), dirs);
  ASSERT_FALSE(inside);
  EXPECT_NE(inside.error().message.find("must be outside"), std::string::npos);
  EXPECT_FALSE(check_move_target(t.path("/data"), dirs));  // holds DIR
  Status file = check_move_target(t.path("/data/file/bad"), dirs);
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("is not a directory"), std::string::npos);
  struct stat a, b;
  if (::stat("/dev/shm", &b) != 0 || ::stat(t.dir().c_str(), &a) != 0 || a.st_dev == b.st_dev)
    GTEST_SKIP() << "no second filesystem at /dev/shm";
  Status other = check_move_target("/dev/shm/gt-bad-never-created", dirs);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("another filesystem"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("/dev/shm/gt-bad-never-created"));
}

}  // namespace resume_test
}  // namespace gt
