// The probe's findings: cuInit's error once for the node (803 with the
// library and the module), a stuck GPU by its step, the copy-rate threshold,
// peer pairs named once, and exit codes as the triage's.
#include "checks/cuda_probe.h"

#include <gtest/gtest.h>

#include "checks/checks.h"
#include "render/cuda_probe_render.h"
#include "render/golden.h"

namespace gt {
namespace cuda_probe_checks_test {

NodeSnapshot two_gpus() {
  NodeSnapshot s;
  s.nvml.initialized = true;
  s.driver_version = "590.48.01";
  for (uint32_t i = 0; i < 2; ++i) {
    GpuState g;
    g.index = i;
    g.pci_bus_id = i == 0 ? "00000000:18:00.0" : "00000000:2A:00.0";
    g.uuid = "GPU-" + std::to_string(i);
    g.processes = std::vector<GpuProcess>{};
    s.gpus.push_back(g);
  }
  return s;
}

CudaGpuProbe passed(uint32_t i, double rate) {
  CudaGpuProbe p;
  p.nvml_index = i;
  p.pci_bus_id = i == 0 ? "00000000:18:00.0" : "00000000:2A:00.0";
  p.outcome = CudaOutcome::kPassed;
  p.steps = {{"cuInit", 1.0}, {"cuCtxCreate", 150.0}};
  p.tested_bytes = 1ull << 30;
  p.kernel_threads = 1u << 20;
  p.h2d_gb_per_s = rate;
  p.d2h_gb_per_s = rate;
  p.link_max_gen = 4;
  p.link_max_width = 16;
  p.link_gb_per_s = 31.5;
  return p;
}

std::vector<std::string> ids(const std::vector<Finding>& f) {
  std::vector<std::string> out;
  for (const Finding& x : f) out.push_back(x.id);
  return out;
}

/// cuInit failing with `code` on both GPUs, `library` under `module`.
CudaProbeReport failed_init(int code, const std::string& library, const std::string& module) {
  CudaProbeReport r;
  r.library_file = library;
  r.module_version = module;
  r.init_error = code;
  for (uint32_t i = 0; i < 2; ++i) {
    CudaGpuProbe p = passed(i, 25);
    p.outcome = CudaOutcome::kFailed;
    p.failed_step = "cuInit";
    p.error_code = code;
    r.gpus.push_back(p);
  }
  return r;
}

/// What the readiness stage read: a new job loads the compat libcuda 570.124.06.
void new_job_loads_compat_570(NodeSnapshot& s) {
  ResolvedLibrary job;
  job.soname = "libcuda.so.1";
  job.file = "/usr/local/cuda/compat/libcuda.so.570.124.06";
  job.version = "570.124.06";
  LoaderContext new_job;
  new_job.who = "a new job";
  new_job.libraries = {job};
  s.cuda = CudaReadiness{};
  s.cuda->loaders = {new_job};
}

/// The triage's prediction for that library on an RTX: cuInit 804.
Finding compat_prediction() {
  Finding f = node_finding("cuda.compat_unsupported");
  f.severity = Severity::kCritical;
  f.title = "CUDA will fail to initialise (cuInit 804 ...)";
  f.evidence = "the compat libcuda 570.124.06 on an RTX 4090";
  return f;
}

TEST(CudaProbeChecks, CuInit803IsOneNodeFindingNamingTheLibraryAndModule) {
  CudaProbeReport r =
      failed_init(803, "/usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01", "590.48.01");
  r.library_version = "565.57.01";
  std::vector<Finding> f = cuda_probe_findings(r, two_gpus());
  ASSERT_EQ(ids(f), std::vector<std::string>{"cuda.init_failed"});
  EXPECT_NE(f[0].evidence.find("libcuda.so.565.57.01 (565.57.01)"), std::string::npos);
  EXPECT_NE(f[0].action.find("590.48.01"), std::string::npos);
  EXPECT_EQ(cuda_probe_exit(r, f), ExitCode::kCritical);
}

// A GPU not probed because it is held proves CUDA started there only when a
// compute process holds it: Xorg and a desktop are graphics clients.
TEST(CudaProbeChecks, AGpuHeldByGraphicsOnlyIsNoProofThatCudaStarts) {
  NodeSnapshot s = two_gpus();
  CudaProbeReport r = failed_init(804, "/usr/local/cuda/compat/libcuda.so.1", "550.163.01");
  r.gpus[1].outcome = CudaOutcome::kSkipped;
  r.gpus[1].failed_step.reset();
  r.gpus[1].detail = "held by 2 processes";
  GpuProcess xorg;
  xorg.pid = 1200;
  xorg.type = "graphics";
  s.gpus[1].processes = std::vector<GpuProcess>{xorg};
  std::vector<Finding> f = cuda_probe_findings(r, s);
  ASSERT_EQ(ids(f), std::vector<std::string>{"cuda.init_failed"});
  EXPECT_NE(f[0].evidence.find("1 GPU not probed: held by running processes (graphics only: no "
                               "proof that CUDA starts)"),
            std::string::npos)
      << f[0].evidence;
  s.gpus[1].processes->front().type = "compute";
  f = cuda_probe_findings(r, s);
  EXPECT_NE(f[0].evidence.find("(a compute process among them started CUDA"), std::string::npos)
      << f[0].evidence;
}

// The probe proving what a prediction said (the compat libcuda on an RTX:
// 804) is one cause: one finding, one plan step, the proof in its evidence.
// A proof of another error than the one predicted stands on its own.
TEST(CudaProbeChecks, TheProofOfAPredictedErrorJoinsThePrediction) {
  NodeSnapshot s = two_gpus();
  s.cuda_probe = failed_init(804, "/usr/local/cuda/compat/libcuda.so.1", "550.163.01");
  s.cuda_probe->library_version = "570.124.06";
  new_job_loads_compat_570(s);
  const Finding prediction = compat_prediction();
  std::vector<Finding> out = {prediction};
  check_cuda_probe(s, out);
  ASSERT_EQ(ids(out), std::vector<std::string>{"cuda.compat_unsupported"});
  EXPECT_EQ(out[0].joined_ids, std::vector<std::string>{"cuda.init_failed"});
  EXPECT_NE(out[0].evidence.find("; proven by the probe: /usr/local/cuda/compat/libcuda.so.1"),
            std::string::npos)
      << out[0].evidence;
  EXPECT_NE(out[0].evidence.find("cuInit returned 804"), std::string::npos) << out[0].evidence;

  std::vector<Finding> other = {node_finding("cuda.driver_mismatch")};  // predicts 803
  check_cuda_probe(s, other);
  EXPECT_EQ(ids(other), (std::vector<std::string>{"cuda.driver_mismatch", "cuda.init_failed"}));

  // The probe loaded another release (--cuda-lib, GPU_TRIAGE_CUDA_LIB): its
  // 804 is no proof of what a new job's library does; both stand.
  s.cuda_probe->library_version = "560.35.03";
  std::vector<Finding> another_library = {prediction};
  check_cuda_probe(s, another_library);
  EXPECT_EQ(ids(another_library),
            (std::vector<std::string>{"cuda.compat_unsupported", "cuda.init_failed"}));
  EXPECT_TRUE(another_library[0].joined_ids.empty());
}

// The probe started CUDA with the very release a prediction says fails:
// both cannot be true, the proof outranks the prediction, and the
// contradiction is the finding (no CRITICAL "will fail" beside it).
TEST(CudaProbeChecks, AProbeThatStartsCudaContradictsThePredictionOfItsRelease) {
  NodeSnapshot s = two_gpus();
  CudaProbeReport r;
  r.library_file = "/usr/local/cuda/compat/libcuda.so.1";
  r.library_version = "570.124.06";
  r.module_version = "550.163.01";
  r.gpus = {passed(0, 25), passed(1, 25)};
  s.cuda_probe = r;
  new_job_loads_compat_570(s);
  const Finding prediction = compat_prediction();
  std::vector<Finding> out = {prediction};
  check_cuda_probe(s, out);
  ASSERT_EQ(ids(out), std::vector<std::string>{"cuda.release_contradicted"});
  EXPECT_EQ(out[0].severity, Severity::kWarning);
  EXPECT_EQ(out[0].title,
            "A new job's libcuda (release 570.124.06) was predicted to fail cuInit with 804, yet "
            "the probe started CUDA with that release under kernel module 550.163.01");
  // Another release probed: the prediction stands.
  s.cuda_probe->library_version = "560.35.03";
  std::vector<Finding> other = {prediction};
  check_cuda_probe(s, other);
  EXPECT_EQ(ids(other), std::vector<std::string>{"cuda.compat_unsupported"});
}

TEST(CudaProbeChecks, CopiesBelowHalfTheLinkWarnAndSayTheWidth) {
  CudaProbeReport r;
  r.gpus = {passed(0, 25.0), passed(1, 6.3)};  // x16 Gen4: 31.5; x4 is 7.9
  std::vector<Finding> f = cuda_probe_findings(r, two_gpus());
  ASSERT_EQ(ids(f), std::vector<std::string>{"cuda.copy_slow"});
  EXPECT_EQ(f[0].subject.gpu_index, 1u);
  EXPECT_NE(f[0].evidence.find("about what x4 carries"), std::string::npos) << f[0].evidence;
  EXPECT_EQ(cuda_probe_exit(r, f), ExitCode::kWarning);
}

TEST(CudaProbeChecks, APairWithoutPeerAccessIsNamedOnce) {
  CudaProbeReport r;
  r.gpus = {passed(0, 25), passed(1, 25)};
  CudaPeerGroup g{"SGLang (pid 3141, TP=2)", {0, 1}, {}, std::nullopt};
  g.pairs = {{"a", "b", 0u, 1u, false}, {"b", "a", 1u, 0u, false}};
  r.peer_groups = {g};
  std::vector<Finding> f = cuda_probe_findings(r, two_gpus());
  ASSERT_EQ(ids(f), std::vector<std::string>{"cuda.peer_unreachable"});
  EXPECT_NE(f[0].title.find("(peer access): 0-1"), std::string::npos) << f[0].title;
  EXPECT_EQ(f[0].title.find("0-1, 0-1"), std::string::npos) << f[0].title;
}

TEST(CudaProbeChecks, NothingProvedIsExit3NotOk) {
  CudaProbeReport r;
  CudaGpuProbe p = passed(0, 25);
  p.outcome = CudaOutcome::kSkipped;
  p.detail = "held by pid 7";
  r.gpus = {p};
  std::vector<Finding> f = cuda_probe_findings(r, two_gpus());
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(cuda_probe_exit(r, f), ExitCode::kUnknown);
}

TEST(CudaProbeRender, OneLinePerGpuWithin80ColumnsGolden) {
  CudaProbeReport r;
  r.library_file = "/usr/lib/x86_64-linux-gnu/libcuda.so.590.48.01";
  r.library_version = "590.48.01";
  r.driver_api_version = 13010;
  r.device_count = 2;
  r.timeout_ms = 2000;
  r.elapsed_ms = 2010;
  CudaGpuProbe stuck = passed(1, 0);
  stuck.outcome = CudaOutcome::kStuck;
  stuck.stuck_in = "cuCtxCreate";
  stuck.detail = "stuck in cuCtxCreate after 2.0 s; killed";
  stuck.elapsed_ms = 2000;
  stuck.cuda_name = "\x1b[31mevil";
  r.gpus = {passed(0, 25.25), stuck};
  std::vector<Finding> f = cuda_probe_findings(r, two_gpus());
  const std::string text = render_cuda_text(r, f, static_cast<int>(cuda_probe_exit(r, f)));
  for (const CudaGpuProbe& p : r.gpus) EXPECT_LE(cuda_gpu_line(p).size(), 80u);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  expect_golden("cuda_probe.txt", text);
}

}  // namespace cuda_probe_checks_test
}  // namespace gt
