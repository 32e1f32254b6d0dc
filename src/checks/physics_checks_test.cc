// The checks that follow NVIDIA's rules (docs/physics.md): an NVML that
// answers is of the module's release; a process holding GPU memory proves
// its libcuda; a GPU busy with no context is stuck; files replaced under
// running processes.
#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace physics_checks_test {
namespace {

const Finding* find_id(const Report& r, const std::string& id) {
  for (const Finding& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

ResolvedLibrary libcuda(const std::string& file, const std::string& version) {
  ResolvedLibrary l;
  l.soname = "libcuda.so.1";
  l.found_at = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  l.file = file;
  l.found_via = "default directory";
  l.version = version;
  l.version_from = "file name";
  return l;
}

Report node_with_job(const std::string& module, const ResolvedLibrary& job_libcuda) {
  Report r = healthy_node(2);
  r.snapshot.kernel_module_version = module;
  r.snapshot.nvml.library_version = module;
  r.snapshot.driver_version = module;
  LoaderContext job;
  job.who = "a new job";
  job.libraries = {job_libcuda};
  r.snapshot.cuda = CudaReadiness{};
  r.snapshot.cuda->loaders.push_back(job);
  return r;
}

ProcessMappings server(uint32_t pid, const std::string& path, bool deleted,
                       std::optional<uint64_t> bytes = 70ull << 30) {
  ProcessMappings m;
  m.pid = pid;
  m.who = "pid " + std::to_string(pid) + " (sglang::scheduler)";
  m.gpu_memory_bytes = bytes;
  MappedLibrary l;
  l.path = path;
  l.deleted = deleted;
  l.version = path.substr(path.rfind(".so.") + 4);
  m.libraries.push_back(l);
  return m;
}

TEST(Physics, AnAnsweringNvmlOfAnotherReleaseIsAContradictionNeverAPrediction) {
  Report r = healthy_node();
  r.snapshot.nvml.library_version = "565.57.01";
  r.snapshot.nvml.library_file = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.565.57.01";
  r.snapshot.kernel_module_version = "590.48.01";
  judge(r, {});
  const Finding* f = find_id(r, "driver.version_contradiction");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("its library is release 590.48.01"), std::string::npos) << f->title;
  EXPECT_EQ(f->action.find("may"), std::string::npos);
  EXPECT_EQ(f->action.find("refuse to start"), std::string::npos);
  EXPECT_EQ(r.verdict, Severity::kWarning);
}

// A fleet host whose nvidia-smi names another driver than its
// /sys/module/nvidia/version, and no NVML library read: the evidence names
// the two readings it has (it read the library's release through an empty
// optional, and the fleet aborted with std::bad_alloc).
TEST(Physics, ADriverOtherThanTheModuleWithNoLibraryReadIsAContradictionNotACrash) {
  Report r = healthy_node();
  r.snapshot.source = Origin::kGathered;
  r.snapshot.nvml.library_version.reset();
  r.snapshot.nvml.library_file.reset();
  r.snapshot.driver_version = "430.26";
  r.snapshot.kernel_module_version = "535.86.05";
  judge(r, {});
  const Finding* f = find_id(r, "driver.version_contradiction");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->evidence.starts_with(
      "/sys/module/nvidia/version 535.86.05; NVML reports driver 430.26; the module refuses"))
      << f->evidence;
}

TEST(Physics, AProcessHoldingMemoryThroughTheFileContradictsThe803) {
  const std::string file = "/usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01";
  Report r = node_with_job("590.48.01", libcuda(file, "565.57.01"));
  r.snapshot.cuda->mapped.push_back(server(3187, file, false));
  judge(r, {});
  EXPECT_FALSE(find_id(r, "cuda.driver_mismatch"));
  const Finding* f = find_id(r, "cuda.release_contradicted");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("pid 3187 (sglang::scheduler) holds GPU memory through it"),
            std::string::npos)
      << f->title;
}

TEST(Physics, TheProofStandsBesideThePredictionWhenTheServerRunsOnTheOldFile) {
  const std::string now = "/usr/lib/x86_64-linux-gnu/libcuda.so.595.45.04";
  const std::string old = "/usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01";
  Report r = node_with_job("590.48.01", libcuda(now, "595.45.04"));
  for (uint32_t pid : {3187u, 3188u}) r.snapshot.cuda->mapped.push_back(server(pid, old, true));
  judge(r, {});
  const Finding* mismatch = find_id(r, "cuda.driver_mismatch");
  ASSERT_TRUE(mismatch);
  EXPECT_NE(mismatch->evidence.find("pid 3187 (sglang::scheduler) and 1 more hold GPU memory "
                                    "through " +
                                    old + " (deleted)"),
            std::string::npos)
      << mismatch->evidence;
  const Finding* replaced = find_id(r, "driver.libraries_replaced");
  ASSERT_TRUE(replaced);
  EXPECT_NE(replaced->title.find("a new job would load " + now + " and fail (cuInit 803)"),
            std::string::npos)
      << replaced->title;
  EXPECT_NE(replaced->evidence.find(old + " (deleted)"), std::string::npos);
  EXPECT_NE(replaced->action.find("do not restart them before the reboot"), std::string::npos);
}

TEST(Physics, ReplacedByTheSameReleaseIsNoFailure) {
  const std::string file = "/usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01";
  Report r = node_with_job("590.48.01", libcuda(file, "590.48.01"));
  r.snapshot.cuda->mapped.push_back(server(3187, file, true));
  judge(r, {});
  EXPECT_FALSE(find_id(r, "cuda.driver_mismatch"));
  const Finding* f = find_id(r, "driver.libraries_replaced");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->title.find("fail"), std::string::npos) << f->title;
}

GpuState busy_without_process(double power_w) {
  GpuState g = healthy_gpu(2);
  g.utilization_gpu_pct = SampleStats{100, 100, 100, 6};
  g.memory_used_bytes = 0;
  g.memory_reserved_bytes = 551ull << 20;
  g.power_draw_w = power_w;
  g.power_limit_w = 700;
  return g;
}

TEST(Physics, BusyWithNoProcessNoMemoryAndIdlePowerIsStuck) {
  Report r = healthy_node();
  r.snapshot.gpus[2] = busy_without_process(74);
  judge(r, {});
  const Finding* f = find_id(r, "gpu.stuck");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->subject.gpu_index, 2u);
  EXPECT_NE(std::find(f->commands.begin(), f->commands.end(), "sudo nvidia-smi -r -i 2"),
            f->commands.end());
}

TEST(Physics, NotStuckWhenAnyReadingSaysWorkOrIsUnknown) {
  for (int variant = 0; variant < 5; ++variant) {
    Report r = healthy_node();
    GpuState g = busy_without_process(74);
    if (variant == 0) g.power_draw_w = 650;               // drawing power: not idle
    if (variant == 1) g.memory_used_bytes = 40ull << 30;  // a context's memory
    if (variant == 2) g.utilization_gpu_pct = SampleStats{0, 60, 100, 6};  // not the whole window
    if (variant == 3) g.processes = std::nullopt;                          // the list is unknown
    if (variant == 4) g.power_draw_w = std::nullopt;                       // power unknown
    r.snapshot.gpus[2] = g;
    judge(r, {});
    EXPECT_FALSE(find_id(r, "gpu.stuck")) << "variant " << variant;
  }
}

}  // namespace
}  // namespace physics_checks_test
}  // namespace gt
