#include "sources/sysfs/numa_nodes.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "util/test_util.h"

namespace gt {
namespace numa_nodes_test {

TEST(NumaNodes, EachNodeWithItsCpusByIdAndTheOtherEntriesSkipped) {
  TempTree t;
  t.write("/sys/devices/system/node/node1/cpulist", "32-63,96-127\n");
  t.write("/sys/devices/system/node/node0/cpulist", "0-31,64-95\n");
  t.write("/sys/devices/system/node/node10/cpulist", "128-159\n");
  t.write("/sys/devices/system/node/node2/cpulist", "\n");  // CXL memory: no CPUs
  t.write("/sys/devices/system/node/possible", "0-2,10\n");
  t.write("/sys/devices/system/node/has_cpu", "0-1,10\n");
  std::optional<std::vector<NumaNode>> n = read_numa_nodes(FsRoot(t.dir()));
  ASSERT_TRUE(n);
  ASSERT_EQ(n->size(), 4u);
  EXPECT_EQ((*n)[0].id, 0u);
  EXPECT_EQ(format_cpu_list(*(*n)[0].cpus), "0-31,64-95");
  EXPECT_EQ((*n)[1].id, 1u);
  EXPECT_EQ((*n)[2].id, 2u);
  ASSERT_TRUE((*n)[2].cpus);
  EXPECT_TRUE((*n)[2].cpus->empty());
  EXPECT_EQ((*n)[3].id, 10u);
}

TEST(NumaNodes, AnUnreadableOrGarbageCpulistIsUnknownAndNoDirectoryIsNull) {
  TempTree t;
  EXPECT_FALSE(read_numa_nodes(FsRoot(t.dir()))) << "no /sys/devices/system/node";
  t.write("/sys/devices/system/node/node0/cpulist", "0-3,zz\n");
  std::filesystem::create_directories(t.path("/sys/devices/system/node/node1"));  // no cpulist
  t.write("/sys/devices/system/node/nodeX/cpulist", "0\n");
  t.write("/sys/devices/system/node/node/cpulist", "0\n");
  std::optional<std::vector<NumaNode>> n = read_numa_nodes(FsRoot(t.dir()));
  ASSERT_TRUE(n);
  ASSERT_EQ(n->size(), 2u);
  EXPECT_FALSE((*n)[0].cpus);
  EXPECT_FALSE((*n)[1].cpus);
}

TEST(NumaNodes, ThisMachinesOwnSysReads) {
  if (!FsRoot("/").exists("/sys/devices/system/node")) GTEST_SKIP() << "no NUMA sysfs here";
  std::optional<std::vector<NumaNode>> n = read_numa_nodes(FsRoot("/"));
  ASSERT_TRUE(n);
  ASSERT_FALSE(n->empty());
  EXPECT_TRUE((*n)[0].cpus) << "node" << (*n)[0].id << "'s cpulist";
}

}  // namespace numa_nodes_test
}  // namespace gt
