#include "sources/procfs/os_release.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gt {
namespace os_release_test {

TEST(OsRelease, ReadsIdIdLikeAndPrettyNameQuotedOrNot) {
  OsRelease os = parse_os_release(
      "# a comment\nNAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE='rhel centos fedora'\n"
      "PRETTY_NAME=\"Rocky Linux 9.3 (Blue Onyx)\"\nnot a pair\n");
  EXPECT_EQ(os.id, "rocky");
  EXPECT_EQ(os.id_like, "rhel centos fedora");
  EXPECT_EQ(os.pretty_name, "Rocky Linux 9.3 (Blue Onyx)");
  // A missing key stays unknown; a lone quote is kept as written.
  OsRelease bare = parse_os_release("ID=\"arch\n");
  EXPECT_EQ(bare.id, "\"arch");
  EXPECT_FALSE(bare.id_like);
  EXPECT_FALSE(parse_os_release("").id);
}

TEST(OsRelease, EtcFirstThenUsrLib) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::TempDir()) / "os_release_test_root";
  fs::remove_all(root);
  EXPECT_FALSE(read_os_release(FsRoot(root.string())));  // neither file
  fs::create_directories(root / "usr/lib");
  std::ofstream(root / "usr/lib/os-release") << "ID=debian\n";
  EXPECT_EQ(read_os_release(FsRoot(root.string()))->id, "debian");
  fs::create_directories(root / "etc");
  std::ofstream(root / "etc/os-release") << "ID=ubuntu\nID_LIKE=debian\n";
  EXPECT_EQ(read_os_release(FsRoot(root.string()))->id, "ubuntu");
  fs::remove_all(root);
}

}  // namespace os_release_test
}  // namespace gt
