#include "sources/procfs/driver_version.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace gt {
namespace {

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

}  // namespace
}  // namespace gt
