#include "sources/procfs/container_identity.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace container_identity_test {

constexpr const char* kId = "3f1a7c2b9d8e4f6a5b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a";

TEST(ContainerIdentity, HostWhenTheCgroupIsAUnit) {
  TempTree t;
  t.write("/proc/self/cgroup", "0::/system.slice/sglang.service\n");
  ContainerPrint c = read_container_identity(t.root());
  EXPECT_EQ(c.id, "host");
  EXPECT_FALSE(c.created_unix_s);
}

TEST(ContainerIdentity, DockerFromCgroupWithItsCreation) {
  TempTree t;
  t.write("/proc/self/cgroup", std::string("0::/system.slice/docker-") + kId + ".scope\n");
  t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
  fake_proc(t, 1, 0, "sh", "sh", 0, "/");  // started 1001 ticks after boot
  ContainerPrint c = read_container_identity(t.root());
  EXPECT_EQ(c.id, kId);
  ASSERT_TRUE(c.id_from);
  EXPECT_NE(c.id_from->find("/proc/self/cgroup"), std::string::npos);
  ASSERT_TRUE(c.created_unix_s);
  EXPECT_EQ(*c.created_unix_s, 1767225600 + 1001 / ::sysconf(_SC_CLK_TCK));
}

TEST(ContainerIdentity, FromMountinfoUnderAPrivateCgroupNamespace) {
  TempTree t;
  t.write("/proc/self/cgroup", "0::/\n");
  t.write("/proc/self/mountinfo", std::string("540 530 252:1 /var/lib/docker/containers/") + kId +
                                      "/hostname /etc/hostname rw,relatime - ext4 /dev/vda1 rw\n");
  ContainerPrint c = read_container_identity(t.root());
  EXPECT_EQ(c.id, kId);
  EXPECT_EQ(c.id_from, "/proc/self/mountinfo");
}

TEST(ContainerIdentity, MountinfoIdMustBeWholeHex) {
  EXPECT_FALSE(container_id_in_mountinfo("/var/lib/docker/containers/abc/hostname"));
  EXPECT_FALSE(container_id_in_mountinfo(""));
}

}  // namespace container_identity_test
}  // namespace gt
