#include "sources/cuda/mapped_libraries.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace mapped_libraries_test {
namespace {

// Lines as the kernel writes /proc/PID/maps (fs/proc/task_mmu.c): the path
// padded to a column, " (deleted)" after a file unlinked since.
constexpr const char* kMaps =
    "55d1c0a00000-55d1c0a21000 r--p 00000000 fd:01 131090                     /usr/bin/python3.12\n"
    "7f0a40000000-7f0a40200000 r-xp 00000000 fd:01 2883617                    "
    "/usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01 (deleted)\n"
    "7f0a40200000-7f0a40400000 r--p 00200000 fd:01 2883617                    "
    "/usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01 (deleted)\n"
    "7f0a50000000-7f0a50100000 r-xp 00000000 fd:01 2883620                    "
    "/opt/my dir/libnvidia-ml.so.1\n"
    "7f0a60000000-7f0a60100000 r-xp 00000000 fd:01 2883621                    "
    "/usr/lib/x86_64-linux-gnu/libnvidia-mlx.so.2\n"
    "7f0a70000000-7f0a70100000 rw-p 00000000 00:00 0 \n"
    "7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0                          [stack]\n";

TEST(MappedLibraries, DriverLibrariesOnceEachWithReleaseAndDeleted) {
  std::vector<MappedLibrary> libs = parse_driver_mappings(kMaps);
  ASSERT_EQ(libs.size(), 2u);
  EXPECT_EQ(libs[0].path, "/usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01");
  EXPECT_EQ(libs[0].version, "590.48.01");
  EXPECT_TRUE(libs[0].deleted);
  EXPECT_EQ(libs[1].path, "/opt/my dir/libnvidia-ml.so.1");  // a space in the path
  EXPECT_EQ(libs[1].version, std::nullopt);                  // the name carries none
  EXPECT_FALSE(libs[1].deleted);
}

TEST(MappedLibraries, CutAndHostileLinesAreSkippedNeverMisread) {
  EXPECT_TRUE(parse_driver_mappings("").empty());
  EXPECT_TRUE(parse_driver_mappings("7f0a-7f0b r-xp 0 fd:01").empty());
  EXPECT_TRUE(parse_driver_mappings("\n\n\n").empty());
  EXPECT_TRUE(parse_driver_mappings("a b c d e libcuda.so.590.48.01\n").empty());  // not absolute
  std::vector<MappedLibrary> cut =
      parse_driver_mappings("7f0a-7f0b r-xp 0 fd:01 1 /x/libcuda.so.590.48.0");
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].version, "590.48.0");  // a version the name gives, even short
}

NodeSnapshot gpu_process_on(uint32_t pid, uint64_t bytes) {
  NodeSnapshot s;
  s.nvml.initialized = true;
  GpuState g;
  GpuProcess p;
  p.pid = pid;
  p.visible = true;
  p.name = "sglang::schedul";  // /proc/PID/comm, as the GPU stage read it
  p.used_memory_bytes = bytes;
  g.processes = std::vector<GpuProcess>{p};
  s.gpus.push_back(g);
  return s;
}

TEST(MappedLibraries, NvmlsProcessesAreReadWithTheirMemory) {
  TempTree t;
  t.write("/proc/3187/maps", kMaps);
  t.write("/proc/4000/maps", kMaps);  // not a GPU process: not read while NVML lists some
  CudaReadiness r;
  read_mapped_libraries(t.root(), gpu_process_on(3187, 70ull << 30), r);
  ASSERT_EQ(r.mapped.size(), 1u);
  EXPECT_EQ(r.mapped[0].pid, 3187u);
  EXPECT_EQ(r.mapped[0].who, "pid 3187 (sglang::schedul)");
  EXPECT_EQ(r.mapped[0].gpu_memory_bytes, 70ull << 30);
  EXPECT_EQ(r.mapped[0].libraries.size(), 2u);
  EXPECT_TRUE(r.notes.empty());
}

TEST(MappedLibraries, WithoutNvmlTheProcessesMappingADriverLibraryAreFound) {
  TempTree t;
  t.write("/proc/3187/maps", kMaps);
  t.write("/proc/3187/comm", "sglang::schedul\n");
  t.write("/proc/1/maps", "55d1c0a00000-55d1c0a21000 r--p 00000000 fd:01 1 /sbin/init\n");
  t.write("/proc/self/maps", kMaps);  // not a PID
  NodeSnapshot s;                     // NVML not initialised: no process lists
  CudaReadiness r;
  read_mapped_libraries(t.root(), s, r);
  ASSERT_EQ(r.mapped.size(), 1u);
  EXPECT_EQ(r.mapped[0].pid, 3187u);
  EXPECT_EQ(r.mapped[0].gpu_memory_bytes, std::nullopt);  // not known without NVML
}

}  // namespace
}  // namespace mapped_libraries_test
}  // namespace gt
