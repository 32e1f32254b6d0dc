#include "util/real_path.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gt {
namespace real_path_test {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/gt-real-path-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

TEST(RealPath, FollowsLinksAndDots) {
  TempDir t;
  const std::string real = *real_path(t.path);  // /tmp itself may be a link
  ASSERT_EQ(::mkdir((t.path + "/data").c_str(), 0755), 0);
  ASSERT_EQ(::symlink((t.path + "/data").c_str(), (t.path + "/link").c_str()), 0);
  EXPECT_EQ(real_path(t.path + "/link"), real + "/data");
  EXPECT_EQ(real_path(t.path + "/data/../data/."), real + "/data");
  EXPECT_EQ(real_path("/"), "/");
}

TEST(RealPath, MissingIsNulloptNeverTheInput) {
  TempDir t;
  EXPECT_EQ(real_path(t.path + "/nope"), std::nullopt);
  ASSERT_EQ(::symlink((t.path + "/nope").c_str(), (t.path + "/dangling").c_str()), 0);
  EXPECT_EQ(real_path(t.path + "/dangling"), std::nullopt);
  EXPECT_EQ(real_path(""), std::nullopt);
}

TEST(RealPath, ManyKeepOrderAndDropTheUnresolvable) {
  TempDir t;
  const std::string real = *real_path(t.path);
  ASSERT_EQ(::mkdir((t.path + "/b").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((t.path + "/a").c_str(), 0755), 0);
  EXPECT_EQ(real_paths({t.path + "/b", t.path + "/missing", t.path + "/a"}),
            (std::vector<std::string>{real + "/b", real + "/a"}));
  EXPECT_TRUE(real_paths({}).empty());
}

}  // namespace real_path_test
}  // namespace gt
