#include "sources/procfs/nvidia_smi_binary.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "util/test_util.h"

namespace gt {
namespace nvidia_smi_binary_test {
namespace {

// The bytes around the marker as Debian's nvidia-smi 535.261.03 has them.
std::string smi(const std::string& release) {
  using namespace std::string_literals;
  return "\x7f"s + "ELF...@ERR!\0<TIME STAMP\0"s + release + "\0<NVSMIV\0Persistence-M\0"s +
         "| NVIDIA-SMI <NVSMIV  > ...";
}

/// An executable file, as a package installs nvidia-smi.
void exe(const TempTree& t, const std::string& path, const std::string& bytes) {
  t.write(path, bytes);
  ::chmod(t.path(path).c_str(), 0755);
}

TEST(NvidiaSmiBinary, TheReleaseBeforeTheHeaderPlaceholder) {
  EXPECT_EQ(nvidia_smi_release_in(smi("565.57.01")), "565.57.01");
  EXPECT_EQ(nvidia_smi_release_in(smi("535.261.03")), "535.261.03");
}

TEST(NvidiaSmiBinary, NothingElseIsTakenForAVersion) {
  EXPECT_EQ(nvidia_smi_release_in("built with 1.2.13 and 565.57.01"), std::nullopt);
  EXPECT_EQ(nvidia_smi_release_in(smi("not.a.version")), std::nullopt);
  using namespace std::string_literals;
  EXPECT_EQ(nvidia_smi_release_in("\0<NVSMIV\0"s), std::nullopt);           // nothing before
  EXPECT_EQ(nvidia_smi_release_in("565.57.01\0<NVSMIV\0"s), std::nullopt);  // no NUL before
  EXPECT_EQ(nvidia_smi_release_in(""), std::nullopt);
}

TEST(NvidiaSmiBinary, EveryCopyOnThePathFirstFirstALinkOnce) {
  TempTree t;
  exe(t, "/usr/local/nvidia/bin/nvidia-smi", smi("565.57.01"));
  exe(t, "/usr/bin/nvidia-smi", smi("590.48.01"));
  t.symlink("/usr/bin/nvidia-smi", "/usr/local/bin/nvidia-smi");  // the same file again
  t.write("/usr/sbin/nvidia-smi/x", "a directory is not a binary");
  std::vector<NvidiaSmiBinary> bins = read_nvidia_smi_binaries(t.root());
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0].path, "/usr/local/nvidia/bin/nvidia-smi");
  EXPECT_EQ(bins[0].release, "565.57.01");
  EXPECT_EQ(bins[1].path, "/usr/local/bin/nvidia-smi");
  EXPECT_EQ(bins[1].release, "590.48.01");
}

TEST(NvidiaSmiBinary, NoneIsEmptyAndABinaryWithoutTheMarkerHasNoRelease) {
  TempTree t;
  EXPECT_TRUE(read_nvidia_smi_binaries(t.root()).empty());
  exe(t, "/usr/bin/nvidia-smi", "#!/bin/sh\necho a wrapper\n");
  std::vector<NvidiaSmiBinary> bins = read_nvidia_smi_binaries(t.root());
  ASSERT_EQ(bins.size(), 1u);
  EXPECT_EQ(bins[0].release, std::nullopt);
}

// Issue 52 item 2: the operator's nvidia-smi ran in the job's container,
// where the image's own copy came first on the container's PATH; the host
// reaches the container's files through /proc/<its PID 1>/root.
TEST(NvidiaSmiBinary, AServersContainerHasItsOwnPath) {
  TempTree t;
  exe(t, "/usr/bin/nvidia-smi", smi("590.48.01"));
  exe(t, "/proc/3120/root/usr/local/bin/nvidia-smi", smi("565.57.01"));
  exe(t, "/proc/3120/root/usr/bin/nvidia-smi", smi("590.48.01"));
  exe(t, "/proc/3120/root/opt/other/nvidia-smi", smi("550.1.1"));  // not on its PATH
  Server sv;
  ContainerInfo& c = sv.container.emplace();
  c.id = std::string(64, 'c');
  c.name = "specforge";
  c.init_pid = 3120;
  c.path_env = "/usr/local/bin:/usr/bin";
  Server no_pid = sv;
  no_pid.container->init_pid.reset();
  std::vector<NvidiaSmiBinary> bins = read_nvidia_smi_binaries(t.root());
  add_container_nvidia_smi(t.root(), {sv, sv, no_pid}, bins);
  ASSERT_EQ(bins.size(), 3u);  // the node's, then the container's two (once)
  EXPECT_FALSE(bins[0].container);
  EXPECT_EQ(bins[1].path, "/usr/local/bin/nvidia-smi");
  EXPECT_EQ(bins[1].release, "565.57.01");
  EXPECT_EQ(bins[1].container, "specforge");
  EXPECT_EQ(bins[2].path, "/usr/bin/nvidia-smi");
  EXPECT_EQ(bins[2].container, "specforge");
}

}  // namespace
}  // namespace nvidia_smi_binary_test
}  // namespace gt
