#include "sources/cuda/library_version.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace {

TEST(LibraryVersion, FromTheFileName) {
  EXPECT_EQ(version_from_file_name("libcuda.so.565.57.01", "libcuda.so"), "565.57.01");
  EXPECT_EQ(version_from_file_name("libnvidia-ml.so.470.82", "libnvidia-ml.so"), "470.82");
  EXPECT_EQ(version_from_file_name("libcuda.so.1", "libcuda.so"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libcuda.so", "libcuda.so"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libcuda.so.565.57.01.bak", "libcuda.so"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libcuda.so.565..01", "libcuda.so"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libcuda.so.5x5.57.01", "libcuda.so"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libcudart.so.12.8.57", "libcuda.so"), std::nullopt);
}

TEST(LibraryVersion, FromTheApplicationProfilePathNeverTheFirstDottedNumber) {
  const std::string bytes = std::string("GCC: (GNU) 4.8.5 20150623\0", 26) +
                            "/etc/nvidia/nvidia-application-profiles-rc:/usr/share/nvidia/"
                            "nvidia-application-profiles-535.261.03-rc:/usr/share/x";
  Result<std::optional<std::string>> v = version_in_bytes(bytes);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "535.261.03");
  Result<std::optional<std::string>> none = version_in_bytes("release 565.57.01 only");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, std::nullopt);
  Result<std::optional<std::string>> bad =
      version_in_bytes("/usr/share/nvidia/nvidia-application-profiles-5x5.1-rc");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("does not parse"), std::string::npos);
  EXPECT_FALSE(version_in_bytes("/usr/share/nvidia/nvidia-application-profiles-535.261.03").ok());
}

TEST(LibraryVersion, AMarkerAcrossTwoReadChunksIsFound) {
  TempTree t;
  std::string bytes((1 << 20) - 20, 'x');
  bytes += "/usr/share/nvidia/nvidia-application-profiles-590.48.01-rc";
  bytes += std::string(100, 'y');
  t.write("/usr/lib/libcuda.so.1", bytes);
  Result<std::optional<std::string>> v = version_in_file(t.root(), "/usr/lib/libcuda.so.1");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, "590.48.01");
  t.write("/usr/lib/tail.so",
          std::string(5000, 'z') + "/usr/share/nvidia/nvidia-application-profiles-1.2-rc");
  Result<std::optional<std::string>> tail = version_in_file(t.root(), "/usr/lib/tail.so");
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, "1.2");
  EXPECT_FALSE(version_in_file(t.root(), "/usr/lib/absent.so").ok());
}

}  // namespace
}  // namespace gt
