#include "sources/cuda/python_search_path.h"

#include <gtest/gtest.h>

#include "sources/cuda/runtime_build.h"
#include "util/test_util.h"

namespace gt {
namespace {

using Dirs = std::vector<std::string>;

void dir(const TempTree& t, const std::string& d) { t.write(d + "/.keep", ""); }

TEST(PythonSearchPath, DebianSystemInterpreterFindsDistPackages) {
  TempTree t;
  t.write("/usr/bin/python3.11", "");
  t.symlink("python3.11", "/usr/bin/python3");
  dir(t, "/usr/local/lib/python3.11/dist-packages");
  dir(t, "/usr/lib/python3/dist-packages");
  dir(t, "/usr/lib/python3.9/dist-packages");  // another release's: not searched
  EXPECT_EQ(python_search_path(t.root(), {"", "/usr/bin/python3", {}}),
            (Dirs{"/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages"}));
}

TEST(PythonSearchPath, RhelLib64BeforeLib) {
  TempTree t;
  t.write("/usr/bin/python3.9", "");
  dir(t, "/usr/lib64/python3.9/site-packages");
  dir(t, "/usr/lib/python3.9/site-packages");
  EXPECT_EQ(python_search_path(t.root(), {"", "/usr/bin/python3.9", {}}),
            (Dirs{"/usr/lib64/python3.9/site-packages", "/usr/lib/python3.9/site-packages"}));
}

TEST(PythonSearchPath, PythonPathUserSiteAndPthFilesInOrder) {
  TempTree t;
  t.write("/usr/bin/python3.12", "");
  dir(t, "/work/src");
  dir(t, "/home/ml/.local/lib/python3.12/site-packages");
  t.write("/usr/local/lib/python3.12/dist-packages/extra.pth",
          "# a comment\nimport os; os.environ\n/opt/extra\nrel\n");
  dir(t, "/opt/extra");
  dir(t, "/usr/local/lib/python3.12/dist-packages/rel");
  const Dirs d = python_search_path(
      t.root(),
      {"", "/usr/bin/python3.12", {{"PYTHONPATH", "/work/src:/nope"}, {"HOME", "/home/ml"}}});
  EXPECT_EQ(d, (Dirs{"/work/src", "/home/ml/.local/lib/python3.12/site-packages",
                     "/usr/local/lib/python3.12/dist-packages", "/opt/extra",
                     "/usr/local/lib/python3.12/dist-packages/rel"}));
  // PYTHONNOUSERSITE drops the user site.
  EXPECT_EQ(
      python_search_path(
          t.root(), {"", "/usr/bin/python3.12", {{"HOME", "/home/ml"}, {"PYTHONNOUSERSITE", "1"}}})
          .front(),
      "/usr/local/lib/python3.12/dist-packages");
}

TEST(PythonSearchPath, VenvWithAndWithoutSystemSitePackages) {
  TempTree t;
  t.write("/usr/bin/python3.11", "");
  t.symlink("/usr/bin/python3.11", "/opt/venv/bin/python");
  t.write("/opt/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  dir(t, "/opt/venv/lib/python3.11/site-packages");
  dir(t, "/usr/lib/python3/dist-packages");
  dir(t, "/home/ml/.local/lib/python3.11/site-packages");
  const PythonInterpreter py{"", "/opt/venv/bin/python", {{"HOME", "/home/ml"}}};
  EXPECT_EQ(python_search_path(t.root(), py), (Dirs{"/opt/venv/lib/python3.11/site-packages"}));
  t.write("/opt/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n");
  EXPECT_EQ(python_search_path(t.root(), py),
            (Dirs{"/home/ml/.local/lib/python3.11/site-packages",
                  "/opt/venv/lib/python3.11/site-packages", "/usr/lib/python3/dist-packages"}));
}

TEST(PythonSearchPath, ARunningProcessIsReadInItsOwnRoot) {
  TempTree t;
  t.symlink("/", "/proc/42/root");
  t.write("/usr/bin/python3.10", "");
  dir(t, "/usr/local/lib/python3.10/dist-packages");
  EXPECT_EQ(python_search_path(t.root(), {"/proc/42/root", "/usr/bin/python3.10", {}}),
            (Dirs{"/usr/local/lib/python3.10/dist-packages"}));
}

TEST(PythonSearchPath, PythonFlagFindsTorchInDistPackages) {
  TempTree t;
  t.write("/usr/bin/python3.10", "");
  t.symlink("python3.10", "/usr/bin/python3");
  t.write("/usr/local/lib/python3.10/dist-packages/torch/version.py",
          "__version__ = '2.7.0+cu128'\ncuda = '12.8'\n");
  std::vector<CudaRuntimeBuild> b =
      read_runtime_builds(t.root(), NodeSnapshot{}, std::string("/usr/bin/python3"));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].cuda_version, "12.8");
  EXPECT_NE(b[0].source->find("/usr/local/lib/python3.10/dist-packages/torch/version.py"),
            std::string::npos);
}

TEST(PythonSearchPath, PythonFlagFindsTorchInLib64) {
  TempTree t;
  t.write("/usr/bin/python3.9", "");
  t.write("/usr/lib64/python3.9/site-packages/torch/version.py", "cuda = '12.4'\n");
  std::vector<CudaRuntimeBuild> b =
      read_runtime_builds(t.root(), NodeSnapshot{}, std::string("/usr/bin/python3.9"));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].cuda_version, "12.4");
}

TEST(PythonSearchPath, ARunningInterpreterWhoseMapsNameNoTorch) {
  // A job that has not initialised CUDA yet: its maps name no libtorch_cuda;
  // its interpreter finds torch in dist-packages (PYTHONPATH first).
  TempTree t;
  t.symlink("/", "/proc/3187/root");
  t.write("/proc/3187/maps", "7f0000000000-7f0000001000 r-xp 0 08:01 1 /usr/bin/python3.10\n");
  t.symlink("/usr/bin/python3.10", "/proc/3187/exe");
  t.write("/proc/3187/environ", std::string("HOME=/root\0PYTHONPATH=/srv/lib\0", 31));
  t.write("/usr/bin/python3.10", "");
  t.write("/usr/local/lib/python3.10/dist-packages/torch/version.py", "cuda = '12.8'\n");
  t.write("/srv/lib/torch/version.py", "cuda = '13.0'\n");
  NodeSnapshot s;
  Server sv;
  sv.kind = "torchrun";
  ServerMember m;
  m.pid = 3187;
  m.name = "python3";
  sv.members.push_back(m);
  s.servers = std::vector<Server>{sv};
  std::vector<CudaRuntimeBuild> b = read_runtime_builds(t.root(), s, std::nullopt);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].cuda_version, "13.0");  // PYTHONPATH's torch is the one imported
  EXPECT_NE(b[0].source->find("/srv/lib/torch/version.py"), std::string::npos);
}

TEST(PythonSearchPath, CupyAndJaxWheelsNameOnlyTheirMajor) {
  TempTree t;
  t.write("/usr/bin/python3.11", "");
  t.write("/usr/local/lib/python3.11/dist-packages/cupy_cuda12x-13.3.0.dist-info/METADATA", "");
  std::vector<CudaRuntimeBuild> b =
      read_runtime_builds(t.root(), NodeSnapshot{}, std::string("/usr/bin/python3.11"));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].cuda_version, "12.0");
  EXPECT_NE(b[0].source->find("cupy_cuda12x-13.3.0"), std::string::npos);
  ASSERT_EQ(b[0].notes.size(), 1u);
  EXPECT_NE(b[0].notes[0].find("names only CUDA 12"), std::string::npos);

  TempTree j;
  j.write("/usr/bin/python3.11", "");
  j.write("/usr/lib/python3/dist-packages/jax_cuda13_plugin-0.7.1.dist-info/METADATA", "");
  b = read_runtime_builds(j.root(), NodeSnapshot{}, std::string("/usr/bin/python3.11"));
  EXPECT_EQ(b[0].cuda_version, "13.0");
}

}  // namespace
}  // namespace gt
