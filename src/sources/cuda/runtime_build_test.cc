#include "sources/cuda/runtime_build.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "model/server.h"
#include "util/test_util.h"

namespace gt {
namespace {

constexpr const char* kSite = "/opt/venv/lib/python3.12/site-packages";

NodeSnapshot one_server(uint32_t pid) {
  NodeSnapshot s;
  Server sv;
  sv.kind = "SGLang";
  ServerMember m;
  m.pid = pid;
  m.name = "sglang::schedul";
  sv.members.push_back(m);
  s.servers = std::vector<Server>{sv};
  return s;
}

std::string maps_line(const std::string& path) {
  return "7f0a4c000000-7f0a4e000000 r-xp 00000000 fd:01 1234567    " + path + "\n";
}

}  // namespace

TEST(RuntimeBuild, TorchVersionPyOfTheMappedLibtorchCuda) {
  TempTree t;
  t.symlink("/", "/proc/3187/root");
  t.write("/proc/3187/maps", maps_line("/usr/lib/x86_64-linux-gnu/libc.so.6") +
                                 maps_line(std::string(kSite) + "/torch/lib/libtorch_cuda.so"));
  t.write(std::string(kSite) + "/torch/version.py",
          "from typing import Optional\n__version__ = '2.7.0+cu128'\n"
          "cuda: Optional[str] = '12.8'\ngit_version = 'abc'\n");
  std::vector<CudaRuntimeBuild> b = read_runtime_builds(t.root(), one_server(3187), std::nullopt);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].pid, 3187u);
  EXPECT_EQ(b[0].cuda_version, "12.8");
  EXPECT_EQ(b[0].source, "torch 2.7.0+cu128 (" + std::string(kSite) + "/torch/version.py)");
  EXPECT_TRUE(b[0].notes.empty());
}

TEST(RuntimeBuild, TheRuntimeWheelAndAMappedCudart) {
  TempTree t;
  t.symlink("/", "/proc/10/root");
  t.write("/proc/10/maps",
          maps_line(std::string(kSite) + "/nvidia/cuda_runtime/lib/libcudart.so.12"));
  t.write(std::string(kSite) + "/nvidia_cuda_runtime_cu12-12.8.57.dist-info/METADATA", "");
  std::vector<CudaRuntimeBuild> b = read_runtime_builds(t.root(), one_server(10), std::nullopt);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].cuda_version, "12.8");
  EXPECT_NE(b[0].source->find("nvidia_cuda_runtime_cu12 12.8.57"), std::string::npos);

  t.symlink("/", "/proc/11/root");
  t.write("/proc/11/maps", maps_line("/usr/local/cuda-12.6/lib64/libcudart.so.12.6.77 (deleted)"));
  b = read_runtime_builds(t.root(), one_server(11), std::nullopt);
  EXPECT_EQ(b[0].cuda_version, "12.6");
  EXPECT_EQ(b[0].source, "CUDA runtime /usr/local/cuda-12.6/lib64/libcudart.so.12.6.77");
}

TEST(RuntimeBuild, PythonPathReadsItsSitePackagesAndConda) {
  TempTree t;
  t.write("/opt/venv/bin/python", "");
  t.write(std::string(kSite) + "/torch/version.py", "__version__ = '2.9.0+cu130'\ncuda = '13.0'\n");
  std::vector<CudaRuntimeBuild> b =
      read_runtime_builds(t.root(), NodeSnapshot{}, std::string("/opt/venv/bin/python"));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(b[0].pid);
  EXPECT_EQ(b[0].who, "--python /opt/venv/bin/python");
  EXPECT_EQ(b[0].cuda_version, "13.0");

  t.write("/opt/conda/bin/python", "");
  t.write("/opt/conda/conda-meta/cudatoolkit-11.8.0-h6a678d5_0.json", "{}");
  b = read_runtime_builds(t.root(), NodeSnapshot{}, std::string("/opt/conda/bin/python"));
  EXPECT_EQ(b[0].cuda_version, "11.8");
  EXPECT_NE(b[0].source->find("conda cudatoolkit 11.8.0"), std::string::npos);
}

TEST(RuntimeBuild, BadInputIsANoteNeverAGuess) {
  TempTree t;
  t.symlink("/", "/proc/20/root");
  t.write("/proc/20/maps", maps_line(std::string(kSite) + "/torch/lib/libtorch_cuda.so"));
  t.write(std::string(kSite) + "/torch/version.py", "cuda = '12.x'\n");
  std::vector<CudaRuntimeBuild> b = read_runtime_builds(t.root(), one_server(20), std::nullopt);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(b[0].cuda_version);
  ASSERT_FALSE(b[0].notes.empty());
  EXPECT_NE(b[0].notes[0].find("no cuda = '<major>.<minor>' line that parses"), std::string::npos);

  // A CPU build: no CUDA version, said so.
  t.write(std::string(kSite) + "/torch/version.py", "__version__ = '2.7.0+cpu'\ncuda = None\n");
  b = read_runtime_builds(t.root(), one_server(20), std::nullopt);
  EXPECT_FALSE(b[0].cuda_version);
  EXPECT_NE(b[0].notes.back().find("CPU-only"), std::string::npos);

  // A dangling /proc/PID/root link: nothing read, nothing guessed.
  TempTree d;
  d.symlink("/no/such/dir", "/proc/21/root");
  d.write("/proc/21/maps", maps_line(std::string(kSite) + "/torch/lib/libtorch_cuda.so"));
  b = read_runtime_builds(d.root(), one_server(21), std::nullopt);
  EXPECT_FALSE(b[0].cuda_version);

  // An unreadable maps (another user's process): a note naming it.
  if (::geteuid() != 0) {
    TempTree u;
    u.write("/proc/22/maps", "x");
    ::chmod(u.path("/proc/22/maps").c_str(), 0);
    b = read_runtime_builds(u.root(), one_server(22), std::nullopt);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_FALSE(b[0].cuda_version);
    EXPECT_NE(b[0].notes[0].find("cannot read /proc/22/maps"), std::string::npos);
  }
  // A process whose /proc entry is gone: nothing to say.
  EXPECT_TRUE(read_runtime_builds(TempTree().root(), one_server(23), std::nullopt).empty());
}

TEST(RuntimeBuild, TorchCudaOf) {
  EXPECT_EQ(torch_cuda_of("cuda = '12.4'\n"), "12.4");
  EXPECT_EQ(torch_cuda_of("cuda: Optional[str] = \"11.8\"\n"), "11.8");
  EXPECT_EQ(torch_cuda_of("cuda = None\n"), "");
  EXPECT_FALSE(torch_cuda_of("cudnn = '9'\n"));
  EXPECT_FALSE(torch_cuda_of("cuda = '12.4\n"));
  EXPECT_FALSE(torch_cuda_of(""));
}

}  // namespace gt
