// make bench: parsing a 100,000-line Xid storm (plus a few distinct lines and
// ordinary kernel noise) against a plain line split of the same text: the
// floor any line-by-line parser pays. Prints both times (Google Benchmark)
// and the ratio. The storm folds into a handful of events, so memory stays
// flat however long the storm.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include "sources/kernel_log/kernel_log.h"

namespace {

std::string storm_text() {
  std::string text;
  char buf[256];
  for (int i = 0; i < 100000; ++i) {
    std::snprintf(buf, sizeof buf,
                  "[%12.6f] NVRM: Xid (PCI:0000:19:00): 95, pid=7062, name=python3, "
                  "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No\n",
                  100.0 + i * 0.001);
    text += buf;
    if (i % 25000 == 0) {
      std::snprintf(buf, sizeof buf,
                    "[%12.6f] NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, "
                    "Graphics SM Warp Exception on (GPC 8, TPC 5, SM 0): Out Of Range Address\n",
                    100.0 + i * 0.001);
      text += buf;
    }
  }
  return text;
}

const std::string& text() {
  static const std::string t = storm_text();
  return t;
}

void BM_LineSplitBaseline(benchmark::State& state) {
  for (auto _ : state) {
    size_t lines = 0;
    std::string_view rest = text();
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      benchmark::DoNotOptimize(rest.substr(0, nl));
      ++lines;
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
    benchmark::DoNotOptimize(lines);
  }
}
BENCHMARK(BM_LineSplitBaseline)->Unit(benchmark::kMillisecond);

void BM_ParseStorm(benchmark::State& state) {
  for (auto _ : state) {
    gt::ParsedKernelLog got = gt::parse_kernel_log_text(text(), gt::LogBoot::kCurrent);
    benchmark::DoNotOptimize(got.events.data());
    if (got.events.size() != 2 || got.events[0].count != 100000) state.SkipWithError("bad fold");
  }
}
BENCHMARK(BM_ParseStorm)->Unit(benchmark::kMillisecond);

/// Keeps each benchmark's real time per iteration to print the ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.iterations > 0) ms_[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> ms_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  double base = reporter.ms_["BM_LineSplitBaseline"], parse = reporter.ms_["BM_ParseStorm"];
  if (base > 0 && parse > 0)
    std::printf("kernel log: 100,004 lines (%.1f MiB): parse %.1f ms, line split %.2f ms: %.0fx\n",
                static_cast<double>(text().size()) / (1 << 20), parse, base, parse / base);
  benchmark::Shutdown();
  return 0;
}
