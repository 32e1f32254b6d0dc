// The distribution's own tool pins the driver, never the container toolkit.
#include "checks/pin_advice.h"

#include <gtest/gtest.h>

#include "sources/procfs/os_release.h"

namespace gt {
namespace pin_advice_test {

PackageTool tool_of(const char* text) { return package_tool(parse_os_release(text)); }

TEST(PinAdvice, OsReleaseIdThenIdLike) {
  EXPECT_EQ(tool_of("ID=debian\nVERSION_ID=\"12\"\n"), PackageTool::kApt);
  EXPECT_EQ(tool_of("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n"), PackageTool::kApt);
  EXPECT_EQ(tool_of("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n"), PackageTool::kDnf);
  EXPECT_EQ(tool_of("ID=\"rhel\"\nID_LIKE=\"fedora\"\n"), PackageTool::kDnf);
  EXPECT_EQ(tool_of("ID=\"sles\"\nID_LIKE=\"suse\"\n"), PackageTool::kZypper);
  EXPECT_EQ(tool_of("ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n"), PackageTool::kZypper);
  EXPECT_EQ(tool_of("ID=pop\nID_LIKE=\"ubuntu debian\"\n"), PackageTool::kApt);
  EXPECT_EQ(tool_of("ID=arch\n"), PackageTool::kUnknown);
  EXPECT_EQ(tool_of(""), PackageTool::kUnknown);  // no os-release
}

TEST(PinAdvice, PinsOnlyTheDriverPackages) {
  for (PackageTool t : {PackageTool::kApt, PackageTool::kDnf, PackageTool::kZypper}) {
    std::optional<std::string> c = pin_driver_command(t);
    ASSERT_TRUE(c);
    EXPECT_NE(c->find("container"), std::string::npos) << *c;  // excluded by name
    EXPECT_NE(c->find("'nvidia-*'"), std::string::npos) << *c;
  }
  EXPECT_NE(pin_driver_command(PackageTool::kApt)->find("apt-mark hold"), std::string::npos);
  EXPECT_NE(pin_driver_command(PackageTool::kDnf)->find("dnf versionlock add"), std::string::npos);
  EXPECT_NE(pin_driver_command(PackageTool::kZypper)->find("zypper addlock"), std::string::npos);
  EXPECT_FALSE(pin_driver_command(PackageTool::kUnknown));
}

}  // namespace pin_advice_test
}  // namespace gt
