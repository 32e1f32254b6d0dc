#include "sources/cuda/library_search.h"

#include <gtest/gtest.h>

#include <cstring>

#include "sources/cuda/cuda_libraries.h"
#include "sources/cuda/libcuda_for_new_job.h"
#include "util/test_util.h"

namespace gt {
namespace {

constexpr const char* kLibDir = "/usr/lib/x86_64-linux-gnu";

/// A glibc-ld.so.cache1.1 file with x86-64 entries (soname, path), in order.
std::string cache_of(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string strings;
  const size_t table = 48 + entries.size() * 24;
  std::string out("glibc-ld.so.cache1.1", 20);
  auto u32 = [](std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); };
  u32(out, static_cast<uint32_t>(entries.size()));
  out.append(24, '\0');  // len_strings, flags, padding, extension, unused
  for (const auto& [soname, path] : entries) {
    u32(out, 0x0303);
    u32(out, static_cast<uint32_t>(table + strings.size()));
    strings += soname + '\0';
    u32(out, static_cast<uint32_t>(table + strings.size()));
    strings += path + '\0';
    out.append(12, '\0');  // osversion, hwcap
  }
  return out + strings;
}

void driver_lib(const TempTree& t, const std::string& dir, const std::string& base,
                const std::string& version) {
  t.write(dir + "/" + base + "." + version, "ELF");
  t.symlink(base + "." + version, dir + "/" + base + ".1");
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const std::string& n : notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(LibrarySearch, ADefaultDirectoryWithoutACache) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  const ResolvedLibrary l =
      resolve_library(t.root(), read_loader_files(t.root()), {}, "libcuda.so.1");
  EXPECT_EQ(l.found_at, std::string(kLibDir) + "/libcuda.so.1");
  EXPECT_EQ(l.file, std::string(kLibDir) + "/libcuda.so.590.48.01");
  EXPECT_EQ(l.found_via, "default directory");
  EXPECT_EQ(l.version, "590.48.01");
  EXPECT_EQ(l.version_from, "file name");
  EXPECT_FALSE(l.compat);
  EXPECT_TRUE(l.notes.empty());
}

TEST(LibrarySearch, TheCacheBeforeTheDefaultsWithTheConfFileThatNamedTheDirectory) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  driver_lib(t, "/usr/local/cuda/compat", "libcuda.so", "570.124.06");
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  t.write("/etc/ld.so.conf.d/000-cuda-compat.conf", "/usr/local/cuda/compat\n");
  t.write("/etc/ld.so.cache", cache_of({{"libcuda.so.1", "/usr/local/cuda/compat/libcuda.so.1"},
                                        {"libcuda.so.1", std::string(kLibDir) + "/libcuda.so.1"}}));
  const ResolvedLibrary l =
      resolve_library(t.root(), read_loader_files(t.root()), {}, "libcuda.so.1");
  EXPECT_EQ(l.file, "/usr/local/cuda/compat/libcuda.so.570.124.06");
  EXPECT_EQ(l.found_via, "/etc/ld.so.cache");
  EXPECT_EQ(l.conf_file, "/etc/ld.so.conf.d/000-cuda-compat.conf");
  EXPECT_TRUE(l.compat);
  EXPECT_EQ(l.version, "570.124.06");
}

TEST(LibrarySearch, AStaleCacheEntryIsNotedAndTheDefaultsSearched) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  t.write("/etc/ld.so.cache", cache_of({{"libcuda.so.1", "/usr/local/cuda/compat/libcuda.so.1"}}));
  const ResolvedLibrary l =
      resolve_library(t.root(), read_loader_files(t.root()), {}, "libcuda.so.1");
  EXPECT_EQ(l.found_via, "default directory");
  EXPECT_EQ(l.version, "590.48.01");
  EXPECT_TRUE(has_note(l.notes,
                       "/etc/ld.so.cache names /usr/local/cuda/compat/libcuda.so.1, which "
                       "is not there (a stale cache)"));
}

TEST(LibrarySearch, LdLibraryPathFirstAndADanglingLinkIsSkippedWithANote) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  t.symlink("libcuda.so.565.57.01", "/opt/gone/libcuda.so.1");
  driver_lib(t, "/opt/venv/lib", "libcuda.so", "565.57.01");
  const LoaderFiles files = read_loader_files(t.root());
  const ResolvedLibrary l = resolve_library(
      t.root(), files, split_library_path("/opt/gone::rel:/opt/venv/lib/"), "libcuda.so.1");
  EXPECT_EQ(l.found_via, "LD_LIBRARY_PATH");
  EXPECT_EQ(l.file, "/opt/venv/lib/libcuda.so.565.57.01");
  EXPECT_TRUE(
      has_note(l.notes, "/opt/gone/libcuda.so.1 is a dangling link (to libcuda.so.565.57.01)"));
  // Only the dangling one: not found anywhere, version unknown, the note says why.
  const ResolvedLibrary gone = resolve_library(t.root(), files, {"/opt/gone"}, "libnvidia-ml.so.1");
  EXPECT_EQ(gone.file, std::nullopt);
  EXPECT_EQ(gone.version, std::nullopt);
}

TEST(LibrarySearch, ALinkOutOfTheRootIsResolvedInsideIt) {
  TempTree t;
  // Absolute target: the root's /opt/drv, never this machine's.
  t.write("/opt/drv/libcuda.so.550.90.07", "ELF");
  t.symlink("/opt/drv/libcuda.so.550.90.07", std::string(kLibDir) + "/libcuda.so.1");
  t.symlink("../../../../../../../../../etc/passwd", "/lib64/libnvidia-ml.so.1");
  const LoaderFiles files = read_loader_files(t.root());
  const ResolvedLibrary l = resolve_library(t.root(), files, {}, "libcuda.so.1");
  EXPECT_EQ(l.file, "/opt/drv/libcuda.so.550.90.07");
  EXPECT_EQ(l.version, "550.90.07");
  const ResolvedLibrary up = resolve_library(t.root(), files, {}, "libnvidia-ml.so.1");
  EXPECT_EQ(up.file, std::nullopt);  // the root's /etc/passwd does not exist
  const std::optional<LibcudaPaths> p = host_path_of_libcuda_for_new_job(t.root());
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->host_path, t.path("/opt/drv/libcuda.so.550.90.07"));
  EXPECT_EQ(p->node_path, "/opt/drv/libcuda.so.550.90.07");
  EXPECT_EQ(p->version, "550.90.07");
}

TEST(LibrarySearch, VersionByContentsAndOneThatDoesNotParse) {
  TempTree t;
  t.write(std::string(kLibDir) + "/libcuda.so.1",
          "ELF...1.2.3...:/usr/share/nvidia/nvidia-application-profiles-570.86.15-rc:");
  t.write("/lib64/libcuda.so.1", "ELF/usr/share/nvidia/nvidia-application-profiles-57O.86-rc");
  const LoaderFiles files = read_loader_files(t.root());
  const ResolvedLibrary l = resolve_library(t.root(), files, {}, "libcuda.so.1");
  EXPECT_EQ(l.version, "570.86.15");
  EXPECT_EQ(l.version_from, "contents");
  const ResolvedLibrary bad = resolve_library(t.root(), files, {"/lib64"}, "libcuda.so.1");
  EXPECT_EQ(bad.file, "/lib64/libcuda.so.1");
  EXPECT_EQ(bad.version, std::nullopt);
  EXPECT_TRUE(has_note(bad.notes, "does not parse"));
  t.write("/lib64/libnvidia-ml.so.1", "ELF");
  const ResolvedLibrary ml = resolve_library(t.root(), files, {}, "libnvidia-ml.so.1");
  EXPECT_EQ(ml.version, std::nullopt);
  EXPECT_TRUE(has_note(ml.notes, "its name carries no release"));
}

TEST(LibrarySearch, AGarbageCacheIsANoteAndTheDefaultsAreSearched) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  t.write("/etc/ld.so.cache", std::string("glibc-ld.so.cache1.1\xff\xff\xff\x0f", 24));
  const LoaderFiles files = read_loader_files(t.root());
  EXPECT_FALSE(files.cache.has_value());
  EXPECT_TRUE(has_note(files.notes, "/etc/ld.so.cache: truncated in the header"));
  EXPECT_EQ(resolve_library(t.root(), files, {}, "libcuda.so.1").version, "590.48.01");
}

/// A node with one GPU that these visible python3 processes hold.
NodeSnapshot with_gpu_processes(std::initializer_list<uint32_t> pids) {
  NodeSnapshot snap;
  GpuState g;
  g.processes = std::vector<GpuProcess>{};
  for (uint32_t pid : pids) {
    GpuProcess p;
    p.pid = pid;
    p.visible = true;
    p.name = "python3";
    g.processes->push_back(p);
  }
  snap.gpus.push_back(g);
  return snap;
}

TEST(CudaLibraries, EachGpuProcessWithItsOwnLdLibraryPathAndAnUnreadableEnvironment) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  driver_lib(t, "/opt/venv/lib", "libcuda.so", "565.57.01");
  t.write("/proc/3187/environ", std::string("HOME=/x\0LD_LIBRARY_PATH=/opt/venv/lib\0", 38));
  t.write("/proc/3188/environ", std::string("HOME=/x\0PATH=/usr/bin\0", 22));
  const NodeSnapshot snap = with_gpu_processes({3188u, 3187u, 3190u});
  CudaReadiness r;
  read_cuda_libraries(t.root(), snap, r);
  ASSERT_EQ(r.loaders.size(), 2u);
  EXPECT_EQ(r.loaders[0].who, "a new job");
  EXPECT_EQ(r.loaders[0].libraries[0].version, "590.48.01");
  EXPECT_EQ(r.loaders[1].pid, 3187u);
  EXPECT_EQ(r.loaders[1].who, "pid 3187 (python3)");
  EXPECT_EQ(r.loaders[1].ld_library_path, "/opt/venv/lib");
  EXPECT_EQ(r.loaders[1].libraries[0].version, "565.57.01");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("environment of pid 3190 not readable (another user's process?)"),
            std::string::npos);
}

// Issue 48 item 12: an LD_LIBRARY_PATH of thousands of entries is searched
// to its bound, which is said; libcuda past the bound is unknown, never
// the cache's; past the deadline no further process is resolved (said).
TEST(CudaLibraries, LdLibraryPathIsBoundedAndTheDeadlineKept) {
  TempTree t;
  driver_lib(t, kLibDir, "libcuda.so", "590.48.01");
  driver_lib(t, "/opt/late/lib", "libcuda.so", "565.57.01");
  std::string path;
  for (int i = 0; i < 3000; ++i) path += "/nowhere/" + std::to_string(i) + ":";
  path += "/opt/late/lib";
  const std::string env = "HOME=/x" + std::string(1, '\0') + "LD_LIBRARY_PATH=" + path + '\0';
  t.write("/proc/3187/environ", env);
  t.write("/proc/3188/environ", env);
  const NodeSnapshot snap = with_gpu_processes({3187u, 3188u});
  CudaReadiness r;
  read_cuda_libraries(t.root(), snap, r);
  ASSERT_EQ(r.loaders.size(), 3u);
  const LoaderContext& c = r.loaders[1];
  EXPECT_TRUE(has_note(c.notes, "LD_LIBRARY_PATH has 3001 entries: only the first 64"));
  EXPECT_FALSE(c.libraries[0].file.has_value()) << "past the bound: unknown, not the cache's";
  EXPECT_TRUE(has_note(c.libraries[0].notes, "the rest were not searched"));

  CudaReadiness late;
  read_cuda_libraries(t.root(), snap, late, std::chrono::steady_clock::now());
  EXPECT_EQ(late.loaders.size(), 1u);  // a new job's only
  EXPECT_TRUE(has_note(late.notes, "the deadline (--timeout) was reached: the libraries of 2"));
}

}  // namespace
}  // namespace gt
