#include "render/prometheus.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "render/golden.h"
#include "render/prometheus_metrics.h"
#include "render/test_snapshot.h"

namespace gt {
namespace prometheus_test {

std::string render_test_report() {
  PrometheusContext ctx;
  ctx.version = "test";
  ctx.collection_duration_s = 1.25;
  return render_prometheus(make_test_report(), ctx);
}

TEST(Prometheus, MatchesGolden) { expect_golden("metrics.prom", render_test_report()); }

TEST(Prometheus, UnknownValuesAreLeftOutNeverZero) {
  const std::string text = render_test_report();
  // GPU 1 is lost: no name, UUID or memory; its series carry no UUID label
  // (its bus id the checks completed from the PCI bus) and it has no memory
  // or temperature series at all.
  EXPECT_NE(text.find("gpu_triage_gpu_up{gpu=\"1\",pci_bus_id=\"00000000:2A:00.0\",Hostname=\"node-"
                      "7\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(text.find("gpu_triage_gpu_memory_used_bytes{gpu=\"1\""), std::string::npos);
  EXPECT_EQ(text.find("gpu_triage_gpu_temperature_celsius{gpu=\"1\""), std::string::npos);
  // GPU 0 has no fan (null): no fan series, not a 0.
  EXPECT_EQ(text.find("gpu_triage_gpu_fan_speed_ratio"), std::string::npos);
  EXPECT_NE(text.find("gpu_triage_gpu_memory_used_bytes{gpu=\"0\",UUID=\"GPU-5b7d1c2e-0000-4000-"
                      "8000-000000000000\",pci_bus_id=\"00000000:18:00.0\",modelName=\"NVIDIA RTX "
                      "PRO 6000 Blackwell Server Edition\",Hostname=\"node-7\"} 75800000000\n"),
            std::string::npos);
}

TEST(Prometheus, NoHostnameLeavesTheLabelOut) {
  Report r = make_test_report();
  r.snapshot.hostname.reset();
  const std::string text = render_prometheus(r, {"test", std::nullopt});
  EXPECT_EQ(text.find("Hostname"), std::string::npos);
  EXPECT_EQ(text.find("gpu_triage_collection_duration_seconds"), std::string::npos);
}

TEST(Prometheus, VerdictIsAStateSet) {
  const std::string text = render_test_report();
  EXPECT_NE(text.find("gpu_triage_verdict{Hostname=\"node-7\",verdict=\"critical\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpu_triage_verdict{Hostname=\"node-7\",verdict=\"ok\"} 0\n"),
            std::string::npos);
}

// gpu-triage --cuda --textfile: the probe's figures per GPU, a GPU not
// probed has no series, a stuck one reads 0, and a peer pair in two groups
// is one series.
TEST(Prometheus, CudaProbeFiguresOnlyWhereProved) {
  Report r = make_test_report();
  EXPECT_EQ(render_prometheus(r, {"test", std::nullopt}).find("gpu_triage_cuda_probe"),
            std::string::npos);
  CudaProbeReport p;
  CudaGpuProbe ok;
  ok.nvml_index = 0;
  ok.uuid = "GPU-0";
  ok.pci_bus_id = "00000000:19:00.0";
  ok.outcome = CudaOutcome::kPassed;
  ok.elapsed_ms = 1500;
  ok.h2d_gb_per_s = 25.5;
  CudaGpuProbe stuck = ok;
  stuck.nvml_index = 1;
  stuck.uuid = "GPU-1";
  stuck.pci_bus_id = "00000000:2A:00.0";
  stuck.outcome = CudaOutcome::kStuck;
  stuck.h2d_gb_per_s.reset();
  CudaGpuProbe skipped = ok;
  skipped.nvml_index = 2;
  skipped.uuid = "GPU-2";
  skipped.pci_bus_id = "00000000:3A:00.0";
  skipped.outcome = CudaOutcome::kSkipped;
  p.gpus = {ok, stuck, skipped};
  CudaPeerPair pair{"00000000:19:00.0", "00000000:2A:00.0", 0, 1, false};
  p.peer_groups = {{"a server", {0, 1}, {pair}, std::nullopt},
                   {"the selection", {0, 1}, {pair}, std::nullopt}};
  r.snapshot.cuda_probe = p;
  const std::string out = render_prometheus(r, {"test", std::nullopt});
  EXPECT_NE(out.find("gpu_triage_cuda_probe_passed{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:"
                     "19:00.0\",Hostname=\"node-7\"} 1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("gpu_triage_cuda_probe_passed{gpu=\"1\",UUID=\"GPU-1\""), std::string::npos);
  EXPECT_NE(out.find("pci_bus_id=\"00000000:2A:00.0\",Hostname=\"node-7\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(out.find("gpu_triage_cuda_probe_passed{gpu=\"2\""), std::string::npos);  // skipped
  EXPECT_EQ(out.find("gpu_triage_cuda_probe_duration_seconds{gpu=\"2\""), std::string::npos);
  EXPECT_NE(out.find("gpu_triage_cuda_probe_h2d_bytes_per_second{gpu=\"0\""), std::string::npos);
  EXPECT_EQ(out.find("gpu_triage_cuda_probe_h2d_bytes_per_second{gpu=\"1\""), std::string::npos);
  EXPECT_NE(out.find("gpu_triage_cuda_probe_duration_seconds{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\""
                     "00000000:19:00.0\",Hostname=\"node-7\"} 1.5\n"),
            std::string::npos);
  EXPECT_NE(out.find("peer_pci_bus_id=\"00000000:2A:00.0\",Hostname=\"node-7\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(out.find("gpu_triage_cuda_peer_access{", out.find("gpu_triage_cuda_peer_access{") + 1),
            std::string::npos);  // one series for the pair
}

TEST(Prometheus, CudaReadyIsAbsentWithoutTheStageElseZeroOnAPredictedFailure) {
  Report r = make_test_report();
  r.snapshot.cuda.reset();
  EXPECT_EQ(render_prometheus(r, {"test", std::nullopt}).find("gpu_triage_cuda_ready"),
            std::string::npos);
  r.snapshot.cuda = CudaReadiness{};
  EXPECT_NE(render_prometheus(r, {"test", std::nullopt})
                .find("gpu_triage_cuda_ready{Hostname=\"node-7\"} 1\n"),
            std::string::npos);  // gpu.lost is critical, but no readiness finding is
  Finding warn;
  warn.id = "cuda.runtime_too_new";
  warn.severity = Severity::kWarning;  // a newer minor: runs under compatibility
  r.findings.push_back(warn);
  EXPECT_NE(render_prometheus(r, {"test", std::nullopt})
                .find("gpu_triage_cuda_ready{Hostname=\"node-7\"} 1\n"),
            std::string::npos);
  Finding uvm = warn;
  uvm.id = "cuda.uvm_missing";
  uvm.severity = Severity::kCritical;
  r.findings.push_back(uvm);
  EXPECT_NE(render_prometheus(r, {"test", std::nullopt})
                .find("gpu_triage_cuda_ready{Hostname=\"node-7\"} 0\n"),
            std::string::npos);
}

TEST(Prometheus, FindingsWithTheSameLabelsAreCounted) {
  Report r = make_test_report();
  r.findings.push_back(r.findings[0]);
  const std::string text = render_prometheus(r, {"test", std::nullopt});
  EXPECT_NE(text.find("gpu_triage_finding{id=\"gpu.lost\",severity=\"critical\",gpu=\"1\","
                      "pci_bus_id=\"00000000:2A:00.0\",Hostname=\"node-7\"} 2\n"),
            std::string::npos);
}

TEST(Prometheus, EveryMetricFollowsTheNamingRules) {
  const std::regex name("gpu_triage_[a-z0-9_]+");
  for (const MetricSpec& s : prometheus_metric_specs()) {
    std::string n(s.name);
    EXPECT_TRUE(std::regex_match(n, name)) << n;
    bool total = n.size() > 6 && n.substr(n.size() - 6) == "_total";
    EXPECT_EQ(total, s.type == "counter") << n << ": counters and only counters end in _total";
    EXPECT_TRUE(s.type == "counter" || s.type == "gauge") << n;
    EXPECT_EQ(n.find("percent"), std::string::npos) << n << ": ratios, not percent";
    EXPECT_EQ(n.find("mib"), std::string::npos) << n << ": bytes, not MiB";
  }
}

TEST(Prometheus, EveryMetricIsDocumented) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/docs/fleet-integration.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (const MetricSpec& s : prometheus_metric_specs())
    EXPECT_NE(doc.str().find("`" + std::string(s.name) + "`"), std::string::npos)
        << s.name << " is missing from docs/fleet-integration.md";
}

TEST(Prometheus, EachMetricAppearsAsOneGroupWithHelpAndTypeFirst) {
  std::istringstream in(render_test_report());
  std::string line, current;
  std::set<std::string> done;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      std::string n = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(done.insert(n).second) << n << " appears twice";
      current = n;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) continue;
    std::string n = line.substr(0, line.find_first_of("{ "));
    EXPECT_EQ(n, current) << line;
  }
}

TEST(Prometheus, UnknownMetricNameIsAProgrammingError) {
  MetricSet set;
  EXPECT_THROW(set.add("gpu_triage_no_such_metric", {}, 1), std::logic_error);
}

TEST(Prometheus, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(Prometheus, FormatsValues) {
  EXPECT_EQ(format_metric_value(75800000000.0), "75800000000");
  EXPECT_EQ(format_metric_value(0.5), "0.5");
  EXPECT_EQ(format_metric_value(86.5), "86.5");
  EXPECT_EQ(format_metric_value(-3), "-3");
  EXPECT_EQ(format_metric_value(1e300), "1e+300");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::infinity()), "+Inf");
}

TEST(Prometheus, ServeMetrics) {
  MetricSet set;
  ServeMetrics m;
  m.report_age_s = 2.5;
  m.collections = 3;
  add_serve_metrics(m, std::string("n1"), set);
  std::ostringstream out;
  set.write(out);
  EXPECT_NE(out.str().find("gpu_triage_report_age_seconds{Hostname=\"n1\"} 2.5\n"),
            std::string::npos);
  EXPECT_NE(out.str().find("# TYPE gpu_triage_collections_total counter\n"
                           "gpu_triage_collections_total{Hostname=\"n1\"} 3\n"),
            std::string::npos);
}

}  // namespace prometheus_test
}  // namespace gt
