#include "sources/cuda/nccl_limits.h"

#include <gtest/gtest.h>

#include <limits>

#include "model/server.h"
#include "util/test_util.h"

namespace gt {

TEST(NcclLimits, MemlockSoftLimit) {
  const std::string head =
      "Limit                     Soft Limit           Hard Limit           Units\n";
  EXPECT_EQ(
      memlock_soft_bytes(
          head + "Max locked memory         65536                65536                bytes\n"),
      65536u);
  EXPECT_EQ(
      memlock_soft_bytes(
          head + "Max locked memory         unlimited            unlimited            bytes\n"),
      std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(memlock_soft_bytes(head + "Max locked memory         lots   x  bytes\n"));
  EXPECT_FALSE(memlock_soft_bytes(head));
}

TEST(NcclLimits, DevShmUnderAFixtureRootComesFromTheTree) {
  TempTree t;
  EXPECT_FALSE(read_dev_shm_bytes(t.root()));  // not given: unknown
  t.write("/.gt-fixture/dev-shm-bytes", "67108864\n");
  EXPECT_EQ(read_dev_shm_bytes(t.root()), 67108864u);
  t.write("/.gt-fixture/dev-shm-bytes", "64m\n");
  EXPECT_FALSE(read_dev_shm_bytes(t.root()));  // does not parse: unknown, not 0
}

TEST(NcclLimits, ServerLimitsAndRdma) {
  TempTree t;
  t.write("/proc/7/limits",
          "Max locked memory         8388608              8388608              bytes\n");
  t.write("/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  NodeSnapshot s;
  Server sv;
  sv.kind = "vLLM";
  sv.tensor_parallel = 8;
  sv.members.push_back(ServerMember{7, "compute", "VLLM::Worker", std::nullopt, {}, std::nullopt});
  Server gone = sv;
  gone.members[0].pid = 8;
  s.servers = std::vector<Server>{sv, gone};
  std::vector<std::string> notes;
  std::vector<ProcessLimits> l = read_server_limits(t.root(), s, notes);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].memlock_bytes, 8388608u);
  EXPECT_EQ(l[0].tensor_parallel, 8u);
  EXPECT_FALSE(l[1].memlock_bytes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(read_rdma_devices(t.root()), std::vector<std::string>{"mlx5_0"});
  EXPECT_FALSE(read_rdma_devices(TempTree().root()));
}

TEST(NcclLimits, AJobsLocalRanksAreItsComputeProcesses) {
  NodeSnapshot s;
  Server job;
  job.kind = "torchrun";
  for (uint32_t pid : {4201u, 4202u, 4203u})
    job.members.push_back(ServerMember{pid, "compute", "python3", std::nullopt, {}, std::nullopt});
  job.members.push_back(ServerMember{4300, "graphics", "Xorg", std::nullopt, {}, std::nullopt});
  s.servers = std::vector<Server>{job};
  std::vector<std::string> notes;
  std::vector<ProcessLimits> l = read_server_limits(TempTree().root(), s, notes);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].rank_pids, (std::vector<uint32_t>{4201, 4202, 4203}));
}

}  // namespace gt
