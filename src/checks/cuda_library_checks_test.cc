#include "checks/cuda_library_checks.h"

#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace {

ResolvedLibrary lib(const std::string& soname, const std::string& dir, const std::string& version,
                    const std::string& via = "default directory") {
  ResolvedLibrary l;
  l.soname = soname;
  const std::string base = soname.substr(0, soname.size() - 2);
  l.found_at = dir + "/" + soname;
  l.file = dir + "/" + base + "." + version;
  l.found_via = via;
  l.version = version;
  l.version_from = "file name";
  l.compat = dir.ends_with("/compat");
  return l;
}

LoaderContext job_with(const std::string& dir, const std::string& version,
                       const std::string& via = "default directory") {
  LoaderContext c;
  c.who = "a new job";
  c.libraries = {lib("libcuda.so.1", dir, version, via),
                 lib("libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu", version),
                 lib("libnvidia-ptxjitcompiler.so.1", dir, version, via)};
  return c;
}

Report node(const std::string& module, LoaderContext job, const std::string& gpu_name = "") {
  Report r = healthy_node(2);
  r.snapshot.kernel_module_version = module;
  r.snapshot.nvml.library_version = module;
  if (!gpu_name.empty()) {
    for (GpuState& g : r.snapshot.gpus) g.name = gpu_name;
  }
  r.snapshot.cuda = CudaReadiness{};
  r.snapshot.cuda->loaders.push_back(std::move(job));
  return r;
}

std::vector<Finding> cuda_findings(const Report& r) {
  std::vector<Finding> out;
  check_cuda_libraries(r.snapshot, out);
  return out;
}

TEST(CudaLibrariesCheck, TheModulesOwnReleaseIsNoFinding) {
  EXPECT_TRUE(
      cuda_findings(node("590.48.01", job_with("/usr/lib/x86_64-linux-gnu", "590.48.01"))).empty());
}

TEST(CudaLibrariesCheck, A565LibcudaUnderA590ModuleIs803) {
  Report r = node("590.48.01", job_with("/usr/lib/x86_64-linux-gnu", "565.57.01"));
  r.snapshot.nvml.library_version = "565.57.01";
  r.snapshot.nvml.library_file = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.565.57.01";
  judge(r, {});
  std::vector<std::string> ids;
  for (const Finding& f : r.findings) ids.push_back(f.id);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "cuda.driver_mismatch"), 1);
  // An NVML that answered is the module's release: its file's name is said apart.
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "driver.version_contradiction"), 1);
  const Finding& f = *std::find_if(r.findings.begin(), r.findings.end(),
                                   [](const Finding& x) { return x.id == "cuda.driver_mismatch"; });
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(
      f.title,
      "CUDA will fail to initialise (cuInit 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) "
      "in a new job: /usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01 under kernel module 590.48.01");
  EXPECT_NE(f.evidence.find("loads libcuda.so.1 at /usr/lib/x86_64-linux-gnu/libcuda.so.1 -> "
                            "/usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01"),
            std::string::npos);
  EXPECT_NE(f.evidence.find("it should be libcuda.so.590.48.01"), std::string::npos);
  EXPECT_NE(f.evidence.find("libnvidia-ptxjitcompiler.so.1 -> "), std::string::npos);
  EXPECT_NE(f.evidence.find(
                "NVML's library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.565.57.01 is 565.57.01"),
            std::string::npos);
  EXPECT_NE(std::find(f.commands.begin(), f.commands.end(),
                      "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml   # on the host, "
                      "then recreate the container"),
            f.commands.end());
}

TEST(CudaLibrariesCheck, NvmlsContradictionStaysWhenLibcudaMatches) {
  Report r = node("590.48.01", job_with("/usr/lib/x86_64-linux-gnu", "590.48.01"));
  r.snapshot.nvml.library_version = "565.57.01";
  judge(r, {});
  EXPECT_TRUE(std::any_of(r.findings.begin(), r.findings.end(),
                          [](const Finding& f) { return f.id == "driver.version_contradiction"; }));
}

LoaderContext compat_job(const std::string& version) {
  LoaderContext c = job_with("/usr/local/cuda/compat", version, "/etc/ld.so.cache");
  c.libraries[0].conf_file = "/etc/ld.so.conf.d/000-cuda-compat.conf";
  return c;
}

TEST(CudaLibrariesCheck, ForwardCompatOnADataCenterGpuIsAllowed) {
  EXPECT_TRUE(
      cuda_findings(node("535.261.03", compat_job("570.124.06"), "NVIDIA H100 80GB HBM3")).empty());
}

TEST(CudaLibrariesCheck, ForwardCompatOnAnRtxBoardIs804WithTheConfFileRemoved) {
  const std::vector<Finding> f =
      cuda_findings(node("535.261.03", compat_job("570.124.06"), "NVIDIA GeForce RTX 4090"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.compat_unsupported");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_NE(f[0].title.find("cuInit 804 CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
            std::string::npos);
  EXPECT_NE(f[0].title.find("GPU 0 (0000:19:00.0) NVIDIA GeForce RTX 4090"), std::string::npos);
  EXPECT_EQ(f[0].commands,
            (std::vector<std::string>{"cat /etc/ld.so.conf.d/000-cuda-compat.conf",
                                      "sudo rm /etc/ld.so.conf.d/000-cuda-compat.conf",
                                      "sudo ldconfig", "ldconfig -p | grep libcuda.so.1"}));
}

TEST(CudaLibrariesCheck, ForwardCompatOnAGpuThatCannotBeToldIsAWarning) {
  const std::vector<Finding> f = cuda_findings(
      node("535.261.03", compat_job("570.124.06"), "NVIDIA RTX PRO 6000 Blackwell Server Edition"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.compat_unsupported");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
}

TEST(CudaLibrariesCheck, ACompatLibraryOlderThanTheModuleIs803) {
  const std::vector<Finding> f =
      cuda_findings(node("590.48.01", compat_job("570.124.06"), "NVIDIA H100 80GB HBM3"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.driver_mismatch");
  EXPECT_NE(f[0].action.find("/etc/ld.so.conf.d/000-cuda-compat.conf puts /usr/local/cuda/compat"),
            std::string::npos);
}

TEST(CudaLibrariesCheck, AGpuProcessLoadingAnotherLibcudaIsNamed) {
  Report r = node("590.48.01", job_with("/usr/lib/x86_64-linux-gnu", "590.48.01"));
  LoaderContext p = job_with("/opt/venv/lib", "565.57.01", "LD_LIBRARY_PATH");
  p.pid = 3187;
  p.who = "pid 3187 (python3)";
  p.ld_library_path = "/opt/venv/lib";
  r.snapshot.cuda->loaders.push_back(p);
  const std::vector<Finding> f = cuda_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject.kind, "process");
  EXPECT_EQ(f[0].subject.pid, 3187u);
  EXPECT_NE(f[0].title.find("in pid 3187 (python3)"), std::string::npos);
  EXPECT_NE(f[0].action.find("remove that directory from the environment of pid 3187"),
            std::string::npos);
}

// Trial finding: a TP=8 server's eight ranks with one environment were
// eight critical findings; one, naming the others.
TEST(CudaLibrariesCheck, ProcessesLoadingTheSameLibcudaAreOneFinding) {
  Report r = node("590.48.01", job_with("/usr/lib/x86_64-linux-gnu", "590.48.01"));
  for (uint32_t pid : {3187u, 3188u, 3189u}) {
    LoaderContext p = job_with("/opt/venv/lib", "565.57.01", "LD_LIBRARY_PATH");
    p.pid = pid;
    p.who = "pid " + std::to_string(pid) + " (sglang::scheduler)";
    p.ld_library_path = "/opt/venv/lib";
    r.snapshot.cuda->loaders.push_back(p);
  }
  const std::vector<Finding> f = cuda_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject.pid, 3187u);
  EXPECT_NE(f[0].title.find("in pid 3187 (sglang::scheduler) when it starts again"),
            std::string::npos)
      << f[0].title;
  EXPECT_NE(f[0].evidence.find("so does pid 3188 (sglang::scheduler); so does pid 3189"),
            std::string::npos)
      << f[0].evidence;
}

TEST(CudaLibrariesCheck, AnUnknownReleaseIsANoteNeverAGuess) {
  LoaderContext c = job_with("/usr/lib/x86_64-linux-gnu", "590.48.01");
  c.libraries[0].version.reset();
  c.libraries[0].notes = {"version of /usr/lib/x86_64-linux-gnu/libcuda.so.1 unknown: x"};
  Report r = node("590.48.01", c);
  r.snapshot.cuda->notes = {"environment of pid 9 not readable (another user's process?): denied"};
  const std::vector<Finding> f = cuda_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.libraries_unread");
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_NE(f[0].evidence.find("release of /usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01 unknown"),
            std::string::npos);
  EXPECT_NE(f[0].evidence.find("environment of pid 9 not readable"), std::string::npos);
}

TEST(CudaLibrariesCheck, NoModuleVersionNoJudgement) {
  Report r = node("590.48.01", job_with("/usr/lib/x86_64-linux-gnu", "565.57.01"));
  r.snapshot.kernel_module_version.reset();
  EXPECT_TRUE(cuda_findings(r).empty());
}

TEST(CudaLibrariesCheck, ForwardCompatByGpuName) {
  EXPECT_EQ(supports_forward_compat("NVIDIA H100 80GB HBM3"), true);
  EXPECT_EQ(supports_forward_compat("NVIDIA A100-SXM4-80GB"), true);
  EXPECT_EQ(supports_forward_compat("Tesla V100-SXM2-32GB"), true);
  EXPECT_EQ(supports_forward_compat("NVIDIA L4"), true);
  EXPECT_EQ(supports_forward_compat("NVIDIA GeForce RTX 4090"), false);
  EXPECT_EQ(supports_forward_compat("NVIDIA RTX A6000"), false);
  EXPECT_EQ(supports_forward_compat("NVIDIA RTX 6000 Ada Generation"), false);
  EXPECT_EQ(supports_forward_compat("Quadro RTX 8000"), false);
  EXPECT_EQ(supports_forward_compat("NVIDIA RTX PRO 6000 Blackwell Server Edition"), std::nullopt);
  EXPECT_EQ(supports_forward_compat("NVIDIA A2000"), std::nullopt);  // a token, not a prefix
  EXPECT_EQ(supports_forward_compat(""), std::nullopt);
}

}  // namespace
}  // namespace gt

namespace gt {
namespace {

/// An image's compat libcuda bind-mounted over the standard directory.
LoaderContext bind_mounted_compat_job(const std::string& version) {
  LoaderContext c = job_with("/usr/lib/x86_64-linux-gnu", version);
  c.libraries[0].compat = true;
  c.libraries[0].compat_from = "a bind mount of /usr/local/cuda-12.2/compat/libcuda.so." + version;
  c.libraries[1].version = c.libraries[2].version = std::nullopt;
  return c;
}

TEST(CudaLibrariesCheck, ABindMountedCompatLibraryOnGeForceIs804WithTheCompatFix) {
  const std::vector<Finding> f = cuda_findings(
      node("525.147.05", bind_mounted_compat_job("535.261.03"), "NVIDIA GeForce RTX 4090"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.compat_unsupported");
  EXPECT_NE(f[0].evidence.find("a forward-compatibility library: a bind mount of "
                               "/usr/local/cuda-12.2/compat/libcuda.so.535.261.03"),
            std::string::npos);
  EXPECT_NE(f[0].action.find("use an image without /usr/local/cuda*/compat"), std::string::npos);
  EXPECT_EQ(f[0].action.find("install the user-space packages"), std::string::npos);
}

TEST(CudaLibrariesCheck, ABindMountedCompatLibraryOlderThanTheModuleIs803WithTheCompatFix) {
  const std::vector<Finding> f = cuda_findings(
      node("570.124.04", bind_mounted_compat_job("535.261.03"), "NVIDIA GeForce RTX 4090"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.driver_mismatch");
  EXPECT_NE(f[0].action.find("is not newer than the kernel module 570.124.04"), std::string::npos);
  EXPECT_EQ(f[0].action.find("install the user-space packages"), std::string::npos);
}

TEST(CudaLibrariesCheck, AnotherLibrarysReleaseIsNotSaidToBeLibcudas) {
  LoaderContext job = job_with("/usr/lib/x86_64-linux-gnu", "565.57.01");
  job.libraries[1] = lib("libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu", "560.35.03");
  const std::vector<Finding> f = cuda_findings(node("590.48.01", job));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("libnvidia-ml.so.1 -> /usr/lib/x86_64-linux-gnu/"
                               "libnvidia-ml.so.560.35.03 is 560.35.03;"),
            std::string::npos);
  EXPECT_EQ(f[0].evidence.find("560.35.03 too"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("libnvidia-ptxjitcompiler.so.565.57.01 is 565.57.01 too"),
            std::string::npos);
}

/// An image that copied its cuda-compat libcuda into the standard directory
/// and deleted the compat directory: no mount, no file to compare, only the
/// release (read from its bytes) newer than the module while the toolkit's
/// libnvidia-ml is the module's own.
LoaderContext copied_compat_job(const std::string& release, const std::string& module) {
  LoaderContext c = job_with("/usr/lib/x86_64-linux-gnu", module);
  ResolvedLibrary& cuda = c.libraries[0];
  cuda.file = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  cuda.version = release;
  cuda.version_from = "contents";
  return c;
}

TEST(CudaLibrariesCheck, ACopiedCompatLibcudaKnownByItsReleaseOnGeForceIs804) {
  const std::vector<Finding> f = cuda_findings(
      node("525.147.05", copied_compat_job("535.261.03", "525.147.05"), "NVIDIA GeForce RTX 4090"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.compat_unsupported");
  EXPECT_NE(f[0].title.find("cuInit 804"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("a forward-compatibility library: its release 535.261.03 (from "
                               "its contents) is newer than the kernel module 525.147.05 while "
                               "libnvidia-ml.so.1 -> "
                               "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.525.147.05 is the "
                               "module's release"),
            std::string::npos);
  EXPECT_NE(f[0].action.find("any copy of its libcuda in the library directory"),
            std::string::npos);
  EXPECT_EQ(f[0].action.find("Reboot"), std::string::npos);
}

TEST(CudaLibrariesCheck, ACopiedCompatLibcudaOnADataCenterGpuOverAnLtsBranchWorks) {
  EXPECT_TRUE(cuda_findings(node("535.261.03", copied_compat_job("570.124.06", "535.261.03"),
                                 "NVIDIA H100 80GB HBM3"))
                  .empty());
}

TEST(CudaLibrariesCheck, AnUpgradeNotRebootedIsNotACompatLibrary) {
  // libcuda and libnvidia-ml both newer: the installed driver, not a compat copy.
  const std::vector<Finding> f = cuda_findings(node(
      "535.261.03", job_with("/usr/lib/x86_64-linux-gnu", "570.124.06"), "NVIDIA H100 80GB HBM3"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.driver_mismatch");
  EXPECT_NE(f[0].action.find("an upgrade without a reboot"), std::string::npos);
}

/// The one finding of a compat library `compat` over kernel module `module` on H100s.
std::vector<Finding> compat_on_h100(const std::string& module, const std::string& compat) {
  return cuda_findings(node(module, compat_job(compat), "NVIDIA H100 80GB HBM3"));
}

TEST(CudaLibrariesCheck, ForwardCompatOverANewFeatureBranchIsNotSupported) {
  const std::vector<Finding> f = compat_on_h100("575.57.08", "580.65.06");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.compat_branch");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].title.find("R575 (a new feature branch)"), std::string::npos);
  EXPECT_NE(f[0].title.find("which error is not documented"), std::string::npos);
  EXPECT_NE(f[0].action.find("Move the node's driver to such a branch"), std::string::npos);
  EXPECT_NE(f[0].action.find("/etc/ld.so.conf.d/000-cuda-compat.conf"), std::string::npos);
}

TEST(CudaLibrariesCheck, ForwardCompatOverABranchNotInTheTableIsUnknown) {
  const std::vector<Finding> f = compat_on_h100("550.163.01", "570.124.06");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "cuda.compat_branch");
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_NE(f[0].title.find("is not known here"), std::string::npos);
  EXPECT_NE(f[0].action.find("Look up R550 in NVIDIA's data-center driver lifecycle"),
            std::string::npos);
}

}  // namespace
}  // namespace gt
