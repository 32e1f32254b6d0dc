// make bench: what the readiness stage (Stage::kReadiness, issue 34) adds to
// a triage of the story (tests/scenarios/story, the node `make demo` runs).
//
// In one run on the same machine: the story's collection with every stage,
// and the same without the readiness stage (the baseline), alternated, each
// on a fresh copy of the mock NVML library; then the stage alone on the
// collected snapshot. Medians of kRuns. Target: the stage adds < 20 ms.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "collect/collect.h"
#include "sources/cuda/readiness.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRuns = 7;
constexpr double kTargetMs = 20.0;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Story {
  std::string dir;  ///< scratch: the library copies
  int copies = 0;
  gt::CollectInputs in;

  double collect_ms(gt::Stages stages, gt::NodeSnapshot* keep = nullptr) {
    const std::string copy = dir + "/libnvidia-ml.so." + std::to_string(++copies);
    fs::copy_file(GT_MOCK_NVML_DIR "/libnvidia-ml.so.1", copy);
    in.nvml_lib = copy;
    auto t0 = Clock::now();
    gt::Collected c = gt::collect_node(in, stages);
    double ms = ms_since(t0);
    if (c.report.snapshot.gpus.empty()) {
      fprintf(stderr, "readiness bench: the story's GPUs were not collected\n");
      exit(3);
    }
    if (keep) *keep = c.report.snapshot;
    return ms;
  }
};

}  // namespace

int main() {
  char tmpl[] = "/tmp/gt-readiness-bench-XXXXXX";
  if (!mkdtemp(tmpl)) return 3;
  const std::string story = GT_SOURCE_DIR "/tests/scenarios/story";
  setenv("MOCK_NVML_SCENARIO", (story + "/scenario.json").c_str(), 1);
  Story s;
  s.dir = tmpl;
  s.in.root = story + "/root";
  s.in.sample_window = std::chrono::milliseconds(0);
  s.in.no_state = true;
  s.in.paths = {"/"};
  const gt::Stages without = gt::without(gt::kAllStages, gt::Stage::kReadiness);
  std::vector<double> base, with, stage;
  gt::NodeSnapshot snap;
  for (int i = 0; i < kRuns; ++i) {
    base.push_back(s.collect_ms(without));
    with.push_back(s.collect_ms(gt::kAllStages, &snap));
  }
  const gt::FsRoot root(s.in.root);
  for (int i = 0; i < kRuns; ++i) {
    auto t0 = Clock::now();
    gt::CudaReadiness r = gt::read_cuda_readiness(root, snap, {});
    stage.push_back(ms_since(t0));
  }
  fs::remove_all(tmpl);
  const double b = median(base), w = median(with), st = median(stage);
  printf("readiness: the story (%zu GPUs), median of %d runs\n", snap.gpus.size(), kRuns);
  printf("  triage without the readiness stage (baseline) %8.1f ms\n", b);
  printf("  triage with it                                %8.1f ms   %.2fx baseline, +%.1f ms\n", w,
         w / b, w - b);
  printf("  the stage alone on the story's snapshot       %8.2f ms   (target < %.0f ms added)\n",
         st, kTargetMs);
  return st < kTargetMs ? 0 : 1;
}
