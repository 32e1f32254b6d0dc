#include "sources/procfs/driver_version.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace gt {
namespace driver_version_test {

namespace fs = std::filesystem;

constexpr char kProprietaryBanner[] =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  590.48.01  Release Build  "
    "(dvs-builder@U22-I3-AE18-23-3)  Thu Nov 20 08:10:39 UTC 2025\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
constexpr char kOpenBanner[] =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  "
    "Release Build  (dvs-builder@U16-I3-B03-4-3)  Fri Mar 14 17:47:00 UTC "
    "2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";

TEST(KernelModuleVersion, PrefersSysModuleVersion) {
  TempTree t;
  t.write("/sys/module/nvidia/version", "590.48.01\n");
  t.write("/proc/driver/nvidia/version", kOpenBanner);
  EXPECT_EQ(read_kernel_module_version(t.root()), "590.48.01");
}

TEST(KernelModuleVersion, ProprietaryBannerFallback) {
  TempTree t;
  t.write("/proc/driver/nvidia/version", kProprietaryBanner);
  EXPECT_EQ(read_kernel_module_version(t.root()), "590.48.01");
}

TEST(KernelModuleVersion, OpenKernelModuleBanner) {
  TempTree t;
  t.write("/proc/driver/nvidia/version", kOpenBanner);
  EXPECT_EQ(read_kernel_module_version(t.root()), "570.133.20");
}

TEST(KernelModuleVersion, OldBannerWithoutReleaseBuild) {
  TempTree t;
  t.write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.57.02  Tue Jul "
          "13 16:14:05 UTC 2021\n");
  EXPECT_EQ(read_kernel_module_version(t.root()), "470.57.02");
}

TEST(KernelModuleVersion, ModuleNotLoadedIsNullopt) {
  TempTree t;
  t.write("/proc/stat", "btime 1\n");
  EXPECT_FALSE(read_kernel_module_version(t.root()).has_value());
}

TEST(KernelModuleVersion, BannerWithoutVersionIsNullopt) {
  TempTree t;
  t.write("/proc/driver/nvidia/version", "NVRM version: unknown\n");
  EXPECT_FALSE(read_kernel_module_version(t.root()).has_value());
}

TEST(LibraryVersionFromFilename, FullVersion) {
  EXPECT_EQ(library_version_from_filename("libnvidia-ml.so.565.57.01"), "565.57.01");
}

TEST(LibraryVersionFromFilename, TwoPartVersionAndDirectory) {
  EXPECT_EQ(library_version_from_filename("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.590.48"),
            "590.48");
}

TEST(LibraryVersionFromFilename, SonameSymlinkIsNullopt) {
  EXPECT_FALSE(library_version_from_filename("libnvidia-ml.so.1").has_value());
}

TEST(LibraryVersionFromFilename, NoVersionIsNullopt) {
  EXPECT_FALSE(library_version_from_filename("libnvidia-ml.so").has_value());
  EXPECT_FALSE(library_version_from_filename("libnvidia-ml.so.").has_value());
  EXPECT_FALSE(library_version_from_filename("libnvidia-ml.so.565.57.01.bak").has_value());
  EXPECT_FALSE(library_version_from_filename("libnvidia-ml.so.565..01").has_value());
  EXPECT_FALSE(library_version_from_filename("").has_value());
}

}  // namespace driver_version_test
}  // namespace gt

namespace gt {
namespace driver_version_test {

void module(const TempTree& t, const std::string& name, const std::string& refcnt,
            std::vector<std::string> holders) {
  t.write("/sys/module/" + name + "/refcnt", refcnt + "\n");
  t.write("/sys/module/" + name + "/initstate", "live\n");
  for (const std::string& h : holders)
    t.symlink("../../" + h, "/sys/module/" + name + "/holders/" + h);
  fs::create_directories(t.path("/sys/module/" + name + "/holders"));
}

// What holds the modules, in an order they can be unloaded in: every
// holder (gdrdrv too) before the module it holds, nvidia last.
TEST(NvidiaModules, HoldersAndUnloadOrder) {
  TempTree t;
  module(t, "nvidia", "412", {"gdrdrv", "nvidia_modeset", "nvidia_peermem", "nvidia_uvm"});
  module(t, "nvidia_modeset", "2", {"nvidia_drm"});
  module(t, "nvidia_drm", "0", {});
  module(t, "nvidia_uvm", "4", {});
  module(t, "nvidia_peermem", "0", {});
  module(t, "gdrdrv", "0", {});
  t.write("/sys/module/nvidia_builtin_param/parameters/x", "1\n");  // no refcnt: not loaded
  std::vector<KernelModule> m = read_nvidia_modules(t.root());
  std::vector<std::string> names;
  for (const KernelModule& k : m) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gdrdrv", "nvidia_peermem", "nvidia_uvm", "nvidia_drm",
                                             "nvidia_modeset", "nvidia"}));
  EXPECT_EQ(m.back().refcnt, 412u);
  EXPECT_EQ(m.back().holders.size(), 4u);
  EXPECT_EQ(m[4].holders, std::vector<std::string>{"nvidia_drm"});
}

TEST(NvidiaModules, NoneLoaded) {
  TempTree t;
  t.write("/sys/module/ext4/refcnt", "3\n");
  EXPECT_TRUE(read_nvidia_modules(t.root()).empty());
}

TEST(NvidiaServices, ByCommWithTheirUnits) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 2210, 1, "nvidia-persiste", "/usr/bin/nvidia-persistenced --user nvpd", 0,
            "/system.slice/nvidia-persistenced.service");
  fake_proc(t, 2305, 1, "nv-fabricmanage", "/usr/bin/nv-fabricmanager -c /x.cfg", 0,
            "/system.slice/nvidia-fabricmanager.service");
  fake_proc(t, 2400, 1, "nv-hostengine", "/usr/bin/nv-hostengine -n", 0, "/user.slice");
  std::vector<NvidiaService> s = read_nvidia_services(t.root());
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].what, "nvidia-persistenced");
  EXPECT_EQ(s[0].pid, 2210u);
  EXPECT_EQ(s[0].unit, "nvidia-persistenced.service");
  EXPECT_EQ(s[1].what, "Fabric Manager");
  EXPECT_EQ(s[1].unit, "nvidia-fabricmanager.service");
  EXPECT_EQ(s[2].what, "DCGM");
  EXPECT_FALSE(s[2].unit);
}

}  // namespace driver_version_test
}  // namespace gt
