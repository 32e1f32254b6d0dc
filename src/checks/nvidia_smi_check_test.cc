#include <gtest/gtest.h>

#include "checks/checks.h"
#include "model/snapshot.h"

namespace gt {
namespace nvidia_smi_check_test {

NodeSnapshot with_binaries(std::vector<NvidiaSmiBinary> bins) {
  NodeSnapshot s;
  s.nvml.initialized = true;
  s.kernel_module_version = "590.48.01";
  s.cuda_driver_version = "13.1";
  s.nvidia_smi = std::move(bins);
  return s;
}

std::vector<Finding> judge(const NodeSnapshot& s) {
  std::vector<Finding> out;
  check_nvidia_smi(s, out);
  return out;
}

// Issue 52 item 2: the node's own nvidia-smi is the driver's; in the job's
// container the image's copy comes first. One line, about the container,
// with the driver's own copy there to run.
TEST(NvidiaSmiCheck, AContainersStaleCopyIsToldWithTheContainersOwn) {
  std::vector<Finding> f =
      judge(with_binaries({{"/usr/bin/nvidia-smi", "590.48.01", {}},
                           {"/usr/local/bin/nvidia-smi", "565.57.01", "specforge"},
                           {"/usr/bin/nvidia-smi", "590.48.01", "specforge"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].title,
            "In container specforge, /usr/local/bin/nvidia-smi (first on its PATH) is nvidia-smi "
            "565.57.01, the driver 590.48.01: its header shows both, NVIDIA-SMI 565.57.01 being "
            "the tool's own build");
  EXPECT_EQ(f[0].commands, std::vector<std::string>{"docker exec specforge /usr/bin/nvidia-smi"});
  EXPECT_NE(f[0].evidence.find("the container toolkit mounts it"), std::string::npos);
}

TEST(NvidiaSmiCheck, TheNodesOwnStaleCopyAndNothingWhenAllAgree) {
  std::vector<Finding> f = judge(with_binaries(
      {{"/usr/local/bin/nvidia-smi", "565.57.01", {}}, {"/usr/bin/nvidia-smi", "590.48.01", {}}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].title.rfind("/usr/local/bin/nvidia-smi (first on PATH)", 0), 0u) << f[0].title;
  EXPECT_EQ(f[0].commands, std::vector<std::string>{"/usr/bin/nvidia-smi"});
  EXPECT_TRUE(judge(with_binaries({{"/usr/bin/nvidia-smi", "590.48.01", {}},
                                   {"/usr/bin/nvidia-smi", "590.48.01", "specforge"}}))
                  .empty());
  // A name or path from outside is one quoted word of the command.
  f = judge(with_binaries({{"/opt/my tools/nvidia-smi", "565.57.01", "x;touch PWN"},
                           {"/usr/bin/nvidia-smi", "590.48.01", "x;touch PWN"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].commands,
            std::vector<std::string>{"docker exec 'x;touch PWN' /usr/bin/nvidia-smi"});
  // An NVML that did not answer: the driver's release is not proven.
  NodeSnapshot down = with_binaries({{"/usr/local/bin/nvidia-smi", "565.57.01", {}}});
  down.nvml.initialized = false;
  EXPECT_TRUE(judge(down).empty());
}

}  // namespace nvidia_smi_check_test
}  // namespace gt
