// The probe's parent side: the children's lines read into each GPU's result
// (steps, figures, the step a stuck child was in, a signal), the link's
// rate, and the child runner's deadline and signal reporting with real
// processes (/bin/sh standing for a child).
#include "sources/cuda_driver/probe_run.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "sources/cuda_driver/child_runner.h"

namespace gt {
namespace cuda_probe_test {

ChildOutcome exited(std::vector<std::string> lines) {
  ChildOutcome o;
  o.end = ChildEnd::kExited;
  o.exit_status = 0;
  o.lines = std::move(lines);
  return o;
}

TEST(CudaProbeRead, APassingGpuHasItsStepsAndFigures) {
  CudaGpuProbe g;
  read_gpu_child(g, exited({"lib /x/libcuda.so.1", "version 12080", "step cuInit", "ok cuInit 1.5",
                            "step cuCtxCreate", "ok cuCtxCreate 120.25", "fig ordinal 2",
                            "fig name NVIDIA H100 80GB HBM3", "fig tested_bytes 1073741824",
                            "fig h2d_gb_per_s 52.5", "fig d2h_gb_per_s 50.125", "end"}));
  EXPECT_EQ(g.outcome, CudaOutcome::kPassed);
  ASSERT_EQ(g.steps.size(), 2u);
  EXPECT_EQ(g.steps[1].name, "cuCtxCreate");
  EXPECT_DOUBLE_EQ(*g.steps[1].ms, 120.25);
  EXPECT_EQ(g.cuda_ordinal, 2);
  EXPECT_EQ(g.cuda_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.tested_bytes, 1ull << 30);
  EXPECT_DOUBLE_EQ(*g.d2h_gb_per_s, 50.125);
}

TEST(CudaProbeRead, AKilledChildIsStuckInTheStepItAnnounced) {
  ChildOutcome o = exited({"step cuInit", "ok cuInit 1", "step cuCtxCreate"});
  o.end = ChildEnd::kKilled;
  o.signal = SIGKILL;
  o.elapsed_ms = 2000;
  CudaGpuProbe g;
  read_gpu_child(g, o);
  EXPECT_EQ(g.outcome, CudaOutcome::kStuck);
  EXPECT_EQ(g.stuck_in, "cuCtxCreate");
  EXPECT_EQ(*g.detail, "stuck in cuCtxCreate after 2.0 s; killed");
}

// Issue 48 item 13: killed at the deadline while its calls still returned
// (the last line 0.4 s before the kill, of a 2 s deadline): late, not stuck.
TEST(CudaProbeRead, AKilledChildWhoseCallsStillReturnedIsLateNotStuck) {
  ChildOutcome o = exited({"step cuInit", "ok cuInit 1", "step copy_rates", "tick", "tick"});
  o.end = ChildEnd::kKilled;
  o.signal = SIGKILL;
  o.elapsed_ms = 2000;
  o.last_line_ms = 1600;
  o.deadline = std::chrono::milliseconds(2000);
  CudaGpuProbe g;
  read_gpu_child(g, o);
  EXPECT_EQ(g.outcome, CudaOutcome::kLate);
  EXPECT_EQ(g.stuck_in, "copy_rates");
  o.last_line_ms = 900;  // no call returned for 1.1 s: stuck
  CudaGpuProbe h;
  read_gpu_child(h, o);
  EXPECT_EQ(h.outcome, CudaOutcome::kStuck);
}

TEST(CudaProbeRead, ASignalOrASilentExitIsACrashNotAPass) {
  ChildOutcome o = exited({"step cuLaunchKernel"});
  o.end = ChildEnd::kSignalled;
  o.signal = SIGSEGV;
  CudaGpuProbe g;
  read_gpu_child(g, o);
  EXPECT_EQ(g.outcome, CudaOutcome::kCrashed);
  EXPECT_EQ(g.signal, SIGSEGV);
  EXPECT_NE(g.detail->find("in cuLaunchKernel"), std::string::npos) << *g.detail;
  CudaGpuProbe quiet;  // exit 0 without "end": never a pass
  read_gpu_child(quiet, exited({"step cuInit", "ok cuInit 1"}));
  EXPECT_EQ(quiet.outcome, CudaOutcome::kCrashed);
}

TEST(CudaProbeRead, AFailureAndAMismatchAreFailures) {
  CudaGpuProbe g;
  read_gpu_child(g, exited({"step cuCtxCreate", "fail cuCtxCreate 999 CUDA_ERROR_UNKNOWN", "end"}));
  EXPECT_EQ(g.outcome, CudaOutcome::kFailed);
  EXPECT_EQ(g.failed_step, "cuCtxCreate");
  EXPECT_EQ(g.error_code, 999);
  EXPECT_EQ(g.error_name, "CUDA_ERROR_UNKNOWN");
  CudaGpuProbe m;
  read_gpu_child(m, exited({"step cuMemcpyDtoH", "mismatch pattern 4096 7 23 1", "end"}));
  EXPECT_EQ(m.outcome, CudaOutcome::kFailed);
  ASSERT_TRUE(m.mismatch);
  EXPECT_EQ(m.mismatch->offset_bytes, 4096u);
  EXPECT_EQ(m.mismatch->got, 23u);
}

TEST(CudaProbeRead, TheNodeChildGivesTheLibraryAndCuInitsError) {
  CudaProbeReport r;
  read_node_child(
      r, exited({"lib /usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01", "version 12070",
                 "step cuInit", "fail cuInit 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "end"}));
  EXPECT_EQ(r.library_version, "565.57.01");
  EXPECT_EQ(r.driver_api_version, 12070);
  EXPECT_EQ(r.init_error, 803);
  EXPECT_FALSE(r.node_error);
}

TEST(CudaProbe, LinkRatesAfterEncoding) {
  EXPECT_NEAR(*pcie_gb_per_s(5, 16), 63.0, 0.1);
  EXPECT_NEAR(*pcie_gb_per_s(4, 16), 31.5, 0.1);
  EXPECT_NEAR(*pcie_gb_per_s(3, 4), 3.94, 0.01);
  EXPECT_FALSE(pcie_gb_per_s(9, 16));
  EXPECT_FALSE(pcie_gb_per_s(0, 16));
  EXPECT_EQ(library_version_from_name("/a/libcuda.so.535.261.03"), "535.261.03");
  EXPECT_FALSE(library_version_from_name("/a/libcuda.so.1"));
  EXPECT_FALSE(library_version_from_name("libcuda.so"));
}

TEST(ChildRunner, EachChildKeepsItsOwnDeadlineAndSignalsAreSaid) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<ChildOutcome> out = run_children({
      {{"/bin/sh", "-c", "echo step cuCtxCreate; exec sleep 30"},
       {},
       std::chrono::milliseconds(300)},
      {{"/bin/sh", "-c", "echo $GT_X; echo end"}, {"GT_X=step cuInit"}, std::chrono::seconds(5)},
      {{"/bin/sh", "-c", "kill -SEGV $$"}, {}, std::chrono::seconds(5)},
  });
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 2000) << "a stuck child must not hold the others";
  EXPECT_EQ(out[0].end, ChildEnd::kKilled);
  EXPECT_EQ(out[0].lines, (std::vector<std::string>{"step cuCtxCreate"}));
  EXPECT_EQ(out[1].end, ChildEnd::kExited);
  EXPECT_EQ(out[1].lines, (std::vector<std::string>{"step cuInit", "end"}));
  EXPECT_EQ(out[2].end, ChildEnd::kSignalled);
  EXPECT_EQ(out[2].signal, SIGSEGV);
}

}  // namespace cuda_probe_test
}  // namespace gt
