#include "sources/cuda/ld_so_conf.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace {

bool has_note(const LdConf& c, const std::string& part) {
  for (const std::string& n : c.notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(LdSoConf, DebiansLayoutNamesTheConfFileOfEachDirectory) {
  TempTree t;
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n");
  t.write("/etc/ld.so.conf.d/000-cuda-compat.conf",
          "# cuda-compat-12-8\n/usr/local/cuda/compat/\n");
  t.write("/etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib\n");
  t.write("/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
          "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
          "/usr/lib/x86_64-linux-gnu\n");
  t.write("/etc/ld.so.conf.d/README", "/not/a/conf\n");
  t.write("/etc/ld.so.conf.d/.hidden.conf", "/hidden\n");
  const LdConf c = read_ld_so_conf(t.root());
  EXPECT_TRUE(c.notes.empty());
  ASSERT_EQ(c.dirs.size(), 5u);
  EXPECT_EQ(c.dirs[0],
            (LdConfDir{"/usr/local/cuda/compat", "/etc/ld.so.conf.d/000-cuda-compat.conf"}));
  EXPECT_EQ(c.dirs[1].dir, "/usr/local/lib");
  EXPECT_EQ(c.dirs[4],
            (LdConfDir{"/usr/lib/x86_64-linux-gnu", "/etc/ld.so.conf.d/x86_64-linux-gnu.conf"}));
  EXPECT_EQ(ld_conf_find(c, "/not/a/conf"), nullptr);
  EXPECT_EQ(ld_conf_find(c, "/hidden"), nullptr);  // glob's '*' does not match a leading dot
}

TEST(LdSoConf, RelativeIncludesSeveralPatternsHwcapAndComments) {
  TempTree t;
  t.write("/etc/ld.so.conf",
          "hwcap 1 nosegneg\ninclude  conf.d/a.conf  conf.d/b*.conf # two\n"
          "/opt/direct   # trailing comment\nrelative/dir\n");
  t.write("/etc/conf.d/a.conf", "/opt/a\n");
  t.write("/etc/conf.d/b1.conf", "/opt/b\n/opt/a\n");
  const LdConf c = read_ld_so_conf(t.root());
  ASSERT_EQ(c.dirs.size(), 3u);
  EXPECT_EQ(c.dirs[0], (LdConfDir{"/opt/a", "/etc/conf.d/a.conf"}));  // first mention only
  EXPECT_EQ(c.dirs[1], (LdConfDir{"/opt/b", "/etc/conf.d/b1.conf"}));
  EXPECT_EQ(c.dirs[2], (LdConfDir{"/opt/direct", "/etc/ld.so.conf"}));
  EXPECT_TRUE(has_note(c, "\"relative/dir\" is not an absolute directory"));
}

TEST(LdSoConf, AnIncludeLoopIsReadOnceAndNoted) {
  TempTree t;
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  t.write("/etc/ld.so.conf.d/loop.conf", "/opt/loop\ninclude /etc/ld.so.conf\ninclude loop.conf\n");
  const LdConf c = read_ld_so_conf(t.root());
  ASSERT_EQ(c.dirs.size(), 1u);
  EXPECT_TRUE(has_note(c, "/etc/ld.so.conf is included again (an include loop?)"));
  EXPECT_TRUE(has_note(c, "/etc/ld.so.conf.d/loop.conf is included again"));
}

TEST(LdSoConf, AHugeConfDirectoryIsCutWithANote) {
  TempTree t;
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  for (int i = 0; i < kMaxLdConfFiles + 40; ++i) {
    char name[64];
    snprintf(name, sizeof name, "/etc/ld.so.conf.d/%04d.conf", i);
    t.write(name, "/opt/lib" + std::to_string(i) + "\n");
  }
  const LdConf c = read_ld_so_conf(t.root());
  EXPECT_EQ(c.dirs.size(), static_cast<size_t>(kMaxLdConfFiles - 1));  // ld.so.conf is one
  EXPECT_TRUE(has_note(c, "more than 256 conf files"));
}

TEST(LdSoConf, ManyDirectoriesAndAHugeFileAreBounded) {
  TempTree t;
  std::string many;
  for (size_t i = 0; i < kMaxLdConfDirs + 10; ++i) many += "/opt/d" + std::to_string(i) + "\n";
  t.write("/etc/ld.so.conf", many + "include big.conf\n");
  t.write("/etc/big.conf", std::string(kMaxLdConfBytes + 1, '#'));
  const LdConf c = read_ld_so_conf(t.root());
  EXPECT_EQ(c.dirs.size(), kMaxLdConfDirs);
  EXPECT_TRUE(has_note(c, "more than 4096 directories"));
  EXPECT_TRUE(has_note(c, "/etc/big.conf"));
}

TEST(LdSoConf, AbsentConfIsNoNoteAMissingNamedIncludeIs) {
  TempTree t;
  EXPECT_TRUE(read_ld_so_conf(t.root()).notes.empty());
  t.write("/etc/ld.so.conf", "include /etc/nowhere.conf\ninclude /etc/none.d/*.conf\n");
  const LdConf c = read_ld_so_conf(t.root());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_TRUE(has_note(c, "/etc/nowhere.conf"));
}

}  // namespace
}  // namespace gt
