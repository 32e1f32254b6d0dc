#include <gtest/gtest.h>

#include <limits>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace {

std::vector<Finding> run(const NodeSnapshot& s) {
  std::vector<Finding> out;
  check_cuda_node(s, out);
  return out;
}

CudaDeviceNodes all_nodes() {
  CudaDeviceNodes d;
  d.nvidiactl = d.nvidia_uvm = d.nvidia_uvm_tools = d.uvm_module_loaded = true;
  d.nvidia_caps = false;
  return d;
}

Report ready_node() {
  Report r = healthy_node();
  r.snapshot.cuda_driver_version = "12.4";
  r.snapshot.cuda = CudaReadiness{};
  r.snapshot.cuda->devices = all_nodes();
  for (GpuState& g : r.snapshot.gpus) g.compute_mode = "Default";
  return r;
}

}  // namespace

TEST(CudaNode, AHealthyNodeHasNoReadinessFinding) {
  Report r = ready_node();
  r.snapshot.cuda->runtimes.push_back({3187, "the SGLang server", "12.4", "torch", {}});
  r.snapshot.cuda->dev_shm_bytes = 64ull << 30;
  r.snapshot.cuda->limits.push_back({3187, "the SGLang server", 65536, 8});
  r.snapshot.cuda->rdma_devices = std::vector<std::string>{};
  EXPECT_TRUE(run(r.snapshot).empty());
  r.snapshot.cuda.reset();  // the stage did not run: nothing said
  r.snapshot.gpus[0].compute_mode = "Prohibited";
  EXPECT_TRUE(run(r.snapshot).empty());
}

TEST(CudaNode, UvmMissingInAContainerIsCriticalWithTheHostFix) {
  Report r = ready_node();
  r.snapshot.cuda->devices->nvidia_uvm = false;
  r.snapshot.cuda->devices->uvm_module_loaded = false;
  r.snapshot.cuda->devices->in_container = true;
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.uvm_missing");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_NE(f[0].title.find("999/100"), std::string::npos);
  EXPECT_EQ(f[0].commands[0].rfind("sudo nvidia-modprobe -u -c=0", 0), 0u);
  EXPECT_NE(f[0].commands[1].find("docker rm -f"), std::string::npos);
}

// Trial finding: a GPU-less machine with /dev/nvidiactl and no uvm node had
// a critical "though NVML answers" while its verdict was UNKNOWN; the
// evidence said "present" for an absent node (an optional tested, not its
// value).
TEST(CudaNode, UvmJudgedOnlyWhereNvmlAnswersAndItsEvidenceSaysAbsent) {
  Report r = ready_node();
  r.snapshot.cuda->devices->nvidia_uvm = false;
  r.snapshot.cuda->devices->uvm_module_loaded = false;
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence.rfind("/dev/nvidia-uvm absent", 0), 0u) << f[0].evidence;
  r.snapshot.nvml.initialized = false;
  r.snapshot.gpus.clear();
  EXPECT_TRUE(run(r.snapshot).empty());
}

TEST(CudaNode, AMissingGpuNodeCountsInAContainerOnlyForAGpuNvmlLists) {
  Report r = ready_node();
  CudaDeviceNodes& d = *r.snapshot.cuda->devices;
  d.in_container = true;
  d.missing_gpu_nodes = {{9, "0000:99:00.0"}};  // not this container's
  EXPECT_TRUE(run(r.snapshot).empty());
  d.missing_gpu_nodes.push_back({3, "0000:1c:00.0"});  // GPU 3, which NVML lists
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.device_node_missing");
  EXPECT_EQ(f[0].title, "/dev/nvidia3 (GPU 3 (0000:1c:00.0)) missing: CUDA cannot open it");
  d.in_container = false;  // on a host every GPU the driver has needs its node
  f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].commands,
            (std::vector<std::string>{"sudo nvidia-modprobe -c=9", "sudo nvidia-modprobe -c=3"}));
}

TEST(CudaNode, ComputeModeWithAHolderOrProhibited) {
  Report r = ready_node();
  r.snapshot.gpus[2].compute_mode = "Exclusive_Process";
  EXPECT_TRUE(run(r.snapshot).empty());  // exclusive, nobody on it: the job gets it
  r.snapshot.gpus[2].processes = std::vector<GpuProcess>{GpuProcess{.pid = 4242}};
  r.snapshot.gpus[5].compute_mode = "Prohibited";
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].id, "cuda.compute_mode_blocked");
  EXPECT_EQ(f[0].subject.gpu_index, 2u);
  EXPECT_EQ(f[0].evidence, "compute mode Exclusive_Process; held by PID 4242");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[1].severity, Severity::kCritical);  // Prohibited: nobody may use it
  EXPECT_NE(f[0].title.find("a new process cannot open it"), std::string::npos);
  EXPECT_EQ(f[1].subject.gpu_index, 5u);
  EXPECT_EQ(f[1].commands[0], "sudo nvidia-smi -i 5 -c DEFAULT");
}

TEST(CudaNode, RuntimeNewerThanTheDriver) {
  Report r = ready_node();
  r.snapshot.cuda->runtimes.push_back(
      {std::nullopt,
       "--python /opt/venv/bin/python",
       "12.8",
       "torch 2.7.0+cu128 (/opt/venv/lib/python3.12/site-packages/torch/version.py)",
       {}});
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.runtime_too_new");
  EXPECT_EQ(f[0].severity, Severity::kWarning);  // 12.8 on 12.4: minor-version compatibility
  EXPECT_NE(f[0].title.find("built for CUDA 12.8 needs driver >= 570.26; this driver supports "
                            "CUDA 12.4"),
            std::string::npos);
  EXPECT_NE(f[0].commands[0].find("/opt/venv/bin/python -m pip install --force-reinstall torch "
                                  "--index-url https://download.pytorch.org/whl/cu124"),
            std::string::npos);
  r.snapshot.cuda->runtimes[0].cuda_version = "13.0";  // a newer major: refused
  f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_NE(f[0].action.find("cudaErrorInsufficientDriver 35"), std::string::npos);
  r.snapshot.cuda_driver_version.reset();  // the driver's CUDA unknown: nothing judged
  EXPECT_TRUE(run(r.snapshot).empty());
}

TEST(CudaNode, DevShmAndMemlock) {
  Report r = ready_node();
  CudaReadiness& c = *r.snapshot.cuda;
  c.dev_shm_bytes = 64ull << 20;
  c.limits.push_back({3187, "the SGLang server (pid 3187, sglang::schedul)", 65536, 1});
  EXPECT_TRUE(run(r.snapshot).empty());  // TP=1: no shared memory between ranks
  c.limits[0].tensor_parallel = 8;
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nccl.dev_shm_small");
  EXPECT_EQ(f[0].title, "/dev/shm is 64 MiB under a TP=8 server: NCCL's shared-memory setup fails");
  c.dev_shm_bytes = (64ull << 20) + 1;
  EXPECT_TRUE(run(r.snapshot).empty());
  c.rdma_devices = std::vector<std::string>{"mlx5_0"};
  f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nccl.memlock_limited");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  c.limits[0].memlock_bytes = std::numeric_limits<uint64_t>::max();
  EXPECT_TRUE(run(r.snapshot).empty());
}

}  // namespace gt

namespace gt {

TEST(CudaNode, DevShmUnderADataParallelJobNamesItsRanks) {
  Report r = ready_node();
  CudaReadiness& c = *r.snapshot.cuda;
  c.dev_shm_bytes = 64ull << 20;
  // torchrun's workers: no tensor parallel by any flag, eight ranks on GPUs.
  ProcessLimits job{4200, "the torchrun job (pid 4201, python3)", 65536, std::nullopt, {}};
  job.rank_pids = {4201, 4202, 4203, 4204, 4205, 4206, 4207, 4208};
  c.limits.push_back(job);
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nccl.dev_shm_small");
  EXPECT_EQ(f[0].title,
            "/dev/shm is 64 MiB under the torchrun job (pid 4201, python3) with 8 local ranks "
            "(pids 4201, 4202, 4203, 4204, 4205, 4206, 4207, 4208): NCCL's shared-memory setup "
            "fails");
  // One process on one GPU has no NCCL peer here.
  c.limits[0].rank_pids = {4201};
  EXPECT_TRUE(run(r.snapshot).empty());
}

}  // namespace gt
