#include <gtest/gtest.h>

#include "checks/cuda_node_parts.h"
#include "checks/test_node.h"

namespace gt {
namespace {

std::vector<Finding> shm_findings(const NodeSnapshot& s) {
  std::vector<Finding> out, shm;
  check_nccl_limits(s, out);
  for (const Finding& f : out)
    if (f.id == "nccl.dev_shm_small") shm.push_back(f);
  return shm;
}

/// A job of `ranks` processes on GPUs, pids from `first`.
ProcessLimits job(uint32_t first, uint32_t ranks, const std::string& who) {
  ProcessLimits l{first, who, 65536, std::nullopt, {}};
  for (uint32_t i = 0; i < ranks; ++i) l.rank_pids.push_back(first + i);
  return l;
}

NodeSnapshot node_with(uint64_t shm, std::vector<ProcessLimits> jobs) {
  NodeSnapshot s = healthy_node(16).snapshot;
  s.cuda = CudaReadiness{};
  s.cuda->dev_shm_bytes = shm;
  s.cuda->limits = std::move(jobs);
  return s;
}

}  // namespace

// Every multi-process job is judged, not only the first: a torchrun
// trainer and an MPI job side by side under Docker's 64 MiB each fail.
TEST(NcclShm, EveryJobWithLocalPeersIsNamed) {
  NodeSnapshot s = node_with(64ull << 20, {job(4201, 4, "the torchrun job (pid 4201, python3)"),
                                           job(5101, 2,
                                               "the process unknown (train.py) (pid 5101, "
                                               "python3)")});
  Server tr;
  tr.kind = "torchrun";
  tr.root_pid = 4200;
  tr.members.push_back({4201, "compute", "python3", "python3 -u train.py", {}, 0});
  s.servers = std::vector<Server>{tr};
  std::vector<Finding> f = shm_findings(s);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].title.find("4 local ranks (pids 4201, 4202, 4203, 4204)"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("the job's root is PID 4200 (torchrun)"), std::string::npos);
  EXPECT_NE(f[1].title.find("2 local ranks (pids 5101, 5102)"), std::string::npos);
  EXPECT_EQ(f[1].subject.pid, 5101u);
}

// Above Docker's default, /dev/shm is judged against what NCCL's SHM
// transport allocates per local peer: 9,633,792 bytes (LL + LL128 +
// SIMPLE buffers at their defaults) for each local rank.
TEST(NcclShm, ASizeBelowNcclsNeedForItsLocalRanksIsTooSmall) {
  NodeSnapshot s = node_with(128ull << 20, {job(6101, 16, "the torchrun job (pid 6101, python)")});
  std::vector<Finding> f = shm_findings(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].title.rfind("/dev/shm is 128 MiB under the torchrun job (pid 6101, python) with "
                             "16 local ranks",
                             0),
            0u);
  EXPECT_NE(f[0].evidence.find("NCCL's SHM transport needs at least 147 MiB for 16 local ranks "
                               "(9633792 bytes each"),
            std::string::npos);
  s.cuda->limits[0] = job(6101, 8, "the torchrun job (pid 6101, python)");  // 73.5 MiB: fits in 128
  EXPECT_TRUE(shm_findings(s).empty());
  s.cuda->dev_shm_bytes = 1ull << 30;  // NCCL's --shm-size=1g
  s.cuda->limits[0] = job(6101, 16, "the torchrun job (pid 6101, python)");
  EXPECT_TRUE(shm_findings(s).empty());
  // A TP size alone, its ranks unseen: no count to judge past 64 MiB.
  s.cuda->dev_shm_bytes = 128ull << 20;
  s.cuda->limits[0] = ProcessLimits{3187, "the SGLang server (pid 3187, python3)", 65536, 16, {}};
  EXPECT_TRUE(shm_findings(s).empty());
}

// A /dev/shm whose size could not be read in a container, under a job with
// local peers, is unknown: said, never passed.
TEST(NcclShm, AnUnreadableSizeIsUnknownNotOk) {
  NodeSnapshot s = node_with(0, {job(7101, 8, "the DeepSpeed job (pid 7101, python3)")});
  s.cuda->dev_shm_bytes.reset();
  EXPECT_TRUE(shm_findings(s).empty());  // the host's tmpfs: half of RAM unless set
  s.cuda->devices = CudaDeviceNodes{};
  s.cuda->devices->in_container = true;  // a container: the runtime's size, unread
  std::vector<Finding> f = shm_findings(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].title.find("could not be read under the DeepSpeed job (pid 7101, python3) with 8 "
                            "local ranks"),
            std::string::npos);
  EXPECT_NE(f[0].evidence.find("needs at least 74 MiB"), std::string::npos);
  s.bundle_replay = BundleReplay{};  // a bundle holds no size: its recording judged it
  EXPECT_TRUE(shm_findings(s).empty());
  s.bundle_replay.reset();
  s.cuda->limits[0] = job(7101, 1, "one process");  // no local peer: nothing to judge
  EXPECT_TRUE(shm_findings(s).empty());
}

}  // namespace gt
