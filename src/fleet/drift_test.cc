// Drift and correlation across hosts, from typed reports as the fleet
// path holds them (judged here, or read back with report_from_json).
#include "fleet/drift.h"

#include <gtest/gtest.h>

#include <sstream>

#include "fleet/correlate.h"
#include "render/fleet_render.h"
#include "report/json_report.h"
#include "report/json_report_read.h"

namespace gt {
namespace drift_test {

using J = nlohmann::ordered_json;

GpuState gpu(const std::string& vbios, std::optional<double> power_w = 700) {
  GpuState g;
  g.name = "NVIDIA H100 80GB HBM3";
  g.vbios_version = vbios;
  g.power_limit_w = power_w;
  g.pcie.max_gen = 5;
  g.ecc_mode_current = true;
  g.persistence_mode = true;
  g.mig_mode_current = false;
  return g;
}

HostReport host(const std::string& name, const std::string& driver = "590.48.01",
                const std::string& vbios = "96.00.99.00.01") {
  Report r;
  r.snapshot.driver_version = driver;
  r.snapshot.cuda_driver_version = "13.1";
  r.snapshot.kernel_module_version = driver;
  r.snapshot.nvml.library_version = driver;
  for (uint32_t i = 0; i < 8; ++i) {
    r.snapshot.gpus.push_back(gpu(vbios));
    r.snapshot.gpus.back().index = i;
  }
  return host_report(name, HostVia::kReport, r);
}

std::vector<std::string> names(const DriftReport& d) {
  std::vector<std::string> out;
  for (const DriftProperty& p : d.differing) out.push_back(p.property);
  return out;
}

TEST(Drift, NamesExactlyTheHostsAndPropertiesThatDiffer) {
  std::vector<HostReport> fleet;
  for (int i = 0; i < 6; ++i) fleet.push_back(host("node0" + std::to_string(i)));
  fleet[2] = host("node02", "580.95.05");
  fleet[4] = host("node04", "590.48.01", "96.00.74.00.0B");
  DriftReport d = find_drift(fleet);
  EXPECT_EQ(d.hosts_compared, 6u);
  // The driver moves the module and the library with it: three properties, one host.
  EXPECT_EQ(names(d), (std::vector<std::string>{"driver_version", "kernel_module_version",
                                                "nvml_library_version", "vbios_version"}));
  for (const DriftProperty& p : d.differing) {
    ASSERT_TRUE(p.majority) << p.property;
    EXPECT_EQ(p.majority->hosts.size(), 5u);
    ASSERT_EQ(p.others.size(), 1u);
    EXPECT_EQ(p.others[0].hosts,
              std::vector<std::string>{p.property == "vbios_version" ? "node04" : "node02"});
  }
  EXPECT_EQ(*d.differing[3].sku, "NVIDIA H100 80GB HBM3");
  std::ostringstream text;
  render_drift_text(d, text);
  EXPECT_NE(text.str().find("drift: driver_version: 590.48.01 on 5 hosts; differs: 580.95.05 on "
                            "node02"),
            std::string::npos)
      << text.str();
}

TEST(Drift, UnknownIsNotADifferenceAndBadHostsAreNamed) {
  std::vector<HostReport> fleet = {host("a"), host("b"), host("c")};
  for (GpuState& g : fleet[1].report->snapshot.gpus) g.vbios_version.reset();  // did not say
  fleet[2].report->snapshot.gpus[7].power_limit_w.reset();  // one GPU did not say
  fleet.push_back(
      host_unknown("d", HostVia::kSsh, "ssh: connect to host d port 22: Connection refused"));
  // A newer report is not read: an UNKNOWN host in report_from_json's words.
  J future = report_to_json(*host("e").report);
  future["schema_version"] = 3;
  Result<Report> read = report_from_json(future);
  ASSERT_FALSE(read.ok());
  fleet.push_back(host_unknown("e", HostVia::kReport, "e.json: " + read.error().message));
  HostReport nothing;
  nothing.host = "f";
  nothing.via = HostVia::kReport;
  fleet.push_back(nothing);
  DriftReport d = find_drift(fleet);
  EXPECT_TRUE(d.differing.empty()) << names(d).size();
  EXPECT_EQ(d.hosts_compared, 3u);
  ASSERT_EQ(d.not_compared.size(), 3u);
  EXPECT_NE(d.not_compared[0].why.find("Connection refused"), std::string::npos);
  EXPECT_NE(d.not_compared[1].why.find("schema version 3"), std::string::npos);
  EXPECT_EQ(d.not_compared[2].why, "no report");
}

TEST(Drift, AHostMixedWithinItselfDiffersAndATieHasNoMajority) {
  std::vector<HostReport> fleet = {host("a"), host("b")};
  fleet[1].report->snapshot.gpus[0].ecc_mode_current = false;
  DriftReport d = find_drift(fleet);
  ASSERT_EQ(names(d), std::vector<std::string>{"ecc_mode"});
  EXPECT_FALSE(d.differing[0].majority);
  EXPECT_EQ(d.differing[0].others[1].value, "on on 7 GPUs, off on 1 GPU");
}

/// A host whose report carries its record across boots: the last run of
/// boot 1 printed `was`, this run (boot 2) prints `now`.
HostReport with_past(const std::string& name, const Fingerprint& was, const Fingerprint& now) {
  HostReport h = host(name);
  GpuHistory& record = h.report->snapshot.history.emplace();
  record.boot_id = "5e1f0c22-4f3a-4b6c-9d8e-7f6a5b4c3d2e";
  record.boots = {{"5e1f0c21-4f3a-4b6c-9d8e-7f6a5b4c3d2e", 1767200000, 1767225000, was, was}};
  h.report->snapshot.fingerprint = now;
  return h;
}

Fingerprint print() {
  Fingerprint f;
  f.taken_unix_s = 1767225000;
  f.gpus = {{"GPU-0", "1000", "96.00.99.00.01", "0000:18:00.0", 5, 16}};
  f.driver.kernel_module_version = "580.95.05";
  f.kernel_release = "6.8.0-51-generic";
  f.container = ContainerPrint{std::string(64, 'a'), 1767000000, "/proc/self/cgroup"};
  return f;
}

TEST(DriftOwnPast, EachHostAgainstItsOwnRecordNeverUnknownAsUnchanged) {
  Fingerprint upgraded = print();
  upgraded.driver.kernel_module_version = "590.48.01";
  upgraded.gpus[0].serial = "2000";
  upgraded.gpus[0].uuid = "GPU-9";
  std::vector<HostReport> fleet = {with_past("changed", print(), upgraded),
                                   with_past("same", print(), print()), host("gathered")};
  // A fingerprint and a record with this boot only, no fingerprint in it.
  HostReport first = with_past("first", print(), print());
  first.report->snapshot.history->boots = {
      {"5e1f0c22-4f3a-4b6c-9d8e-7f6a5b4c3d2e", 1767300000, 1767300000, {}, {}}};
  fleet.push_back(first);
  fleet.push_back(host_unknown("down", HostVia::kSsh, "ssh: timeout"));
  DriftReport d = find_drift(fleet);
  ASSERT_EQ(d.own_past.size(), 5u);
  const HostOwnPast& changed = d.own_past[0];
  EXPECT_EQ(changed.state, OwnPastState::kCompared);
  EXPECT_EQ(changed.baseline_boot_id, "5e1f0c21-4f3a-4b6c-9d8e-7f6a5b4c3d2e");
  EXPECT_FALSE(changed.baseline_this_boot);
  EXPECT_EQ(changed.baseline_unix_s, 1767225000);
  ASSERT_EQ(changed.changes.size(), 2u);
  EXPECT_EQ(changed.changes[0].kind, FingerprintChangeKind::kGpuReplaced);
  EXPECT_EQ(changed.changes[1].kind, FingerprintChangeKind::kDriver);
  EXPECT_EQ(changed.changes[1].before, "580.95.05");
  EXPECT_EQ(changed.changes[1].after, "590.48.01");
  EXPECT_EQ(d.own_past[1].state, OwnPastState::kCompared);
  EXPECT_TRUE(d.own_past[1].changes.empty());
  EXPECT_EQ(d.own_past[2].state, OwnPastState::kNotKnown);  // no fingerprint: not "unchanged"
  EXPECT_EQ(d.own_past[2].why, "no record");
  EXPECT_EQ(d.own_past[3].state, OwnPastState::kNoEarlierRun);
  EXPECT_EQ(d.own_past[4].state, OwnPastState::kNotKnown);
  EXPECT_EQ(d.own_past[4].why, "no report");

  std::ostringstream text;
  render_drift_text(d, text);
  const std::string t = text.str();
  for (const char* line :
       {"drift: own past: 1 host changed, 1 unchanged, 1 with no earlier run recorded, 2 not "
        "known\n",
        "drift: own past: changed: since the last run of boot 5e1f0c21 (2025-12-31 23:50 UTC): "
        "driver kernel module: 580.95.05 -> 590.48.01\n",
        "drift: own past: changed: since the last run of boot 5e1f0c21 (2025-12-31 23:50 UTC): "
        "gpu_replaced 0000:18:00.0: serial 1000 (GPU-0) -> serial 2000 (GPU-9)\n",
        "drift: own past: same: unchanged since the last run of boot 5e1f0c21 (2025-12-31 23:50 "
        "UTC)\n",
        "drift: own past: gathered: own past not known (no record)\n",
        "drift: own past: first: no earlier run recorded\n",
        "drift: own past: down: own past not known (no report)\n"})
    EXPECT_NE(t.find(line), std::string::npos) << line << "\n" << t;
  const J j = drift_to_json(d);
  ASSERT_EQ(j["own_past"].size(), 5u);
  EXPECT_EQ(j["own_past"][0]["state"], "compared");
  EXPECT_EQ(j["own_past"][0]["baseline"]["time"], "2025-12-31T23:50:00Z");
  EXPECT_EQ(j["own_past"][0]["changes"][1], (J{{"kind", "driver"},
                                               {"item", "kernel module"},
                                               {"before", "580.95.05"},
                                               {"after", "590.48.01"}}));
  EXPECT_TRUE(j["own_past"][2]["baseline"].is_null());
  EXPECT_EQ(j["own_past"][2]["state"], "not_known");
  EXPECT_EQ(j["own_past"][3]["state"], "no_earlier_run");
}

TEST(DriftOwnPast, ARecordReadBackFromTheReportsJsonGivesTheSameChanges) {
  Fingerprint moved = print();
  moved.gpus[0].pci_bus_id = "0000:19:00.0";
  HostReport h = with_past("n1", print(), moved);
  Result<Report> read = report_from_json(report_to_json(*h.report));
  ASSERT_TRUE(read.ok()) << read.error().message;
  HostOwnPast direct = own_past_of(h);
  HostOwnPast back = own_past_of(host_report("n1", HostVia::kReport, *read));
  ASSERT_EQ(back.state, OwnPastState::kCompared);
  ASSERT_EQ(back.changes.size(), 1u);
  EXPECT_EQ(back.changes[0].kind, FingerprintChangeKind::kGpuMoved);
  EXPECT_EQ(back.changes[0].before, direct.changes[0].before);
  EXPECT_EQ(back.changes[0].after, direct.changes[0].after);
}

HostReport with_xid(const std::string& name, int code, int64_t time_unix_s) {
  HostReport h = host(name);
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = code;
  e.pci_bus_id = "0000:19:00.0";
  e.time_unix_s = time_unix_s;
  e.count = 3;
  h.report->snapshot.kernel_log.emplace().events = {e};
  Finding f;
  f.id = "gpu.xid." + std::to_string(code);
  f.severity = Severity::kWarning;
  h.report->findings = {f};
  h.report->verdict = Severity::kWarning;
  return h;
}

constexpr int64_t kThreeTwelve = 1796008320;  // 2026-11-30T03:12:00Z

TEST(Correlate, FiveHostsWithXid31InOneMinuteAreOneFleetFinding) {
  std::vector<HostReport> fleet;
  for (int i = 0; i < 5; ++i)
    fleet.push_back(with_xid("n" + std::to_string(i), 31, kThreeTwelve + 10 + i * 9));
  fleet.push_back(with_xid("late", 31, kThreeTwelve + 6480));  // another hour: its own GPU
  fleet.push_back(host("quiet"));
  std::vector<FleetFinding> f = correlate_xids(fleet);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "fleet.xid_correlated.31");
  EXPECT_EQ(f[0].hosts, (std::vector<std::string>{"n0", "n1", "n2", "n3", "n4"}));
  EXPECT_EQ(f[0].events, 15u);
  EXPECT_NE(f[0].title.find("likely the job"), std::string::npos);
  apply_fleet_findings(f, fleet);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(host_verdict(fleet[i]), Verdict::kOk) << i;
    EXPECT_EQ(fleet[i].report->verdict, Severity::kInfo) << i;
    EXPECT_EQ(fleet[i].report->findings[0].severity, Severity::kInfo);
    EXPECT_EQ(fleet[i].report->findings[0].explained_by, "fleet.xid_correlated.31");
  }
  EXPECT_EQ(host_verdict(fleet[5]), Verdict::kWarning);
  EXPECT_FALSE(fleet[5].report->findings[0].explained_by);
  // The JSON output carries the mark on the explained finding only.
  EXPECT_EQ(fleet_to_json(fleet, false)[0]["report"]["findings"][0]["explained_by"],
            "fleet.xid_correlated.31");
  EXPECT_FALSE(fleet_to_json(fleet, false)[5]["report"]["findings"][0].contains("explained_by"));
}

TEST(Correlate, OneHostAloneOrAGpuXidIsNotAFleetEvent) {
  std::vector<HostReport> fleet = {with_xid("a", 31, kThreeTwelve + 10),
                                   with_xid("b", 79, kThreeTwelve + 11),
                                   with_xid("c", 79, kThreeTwelve + 12)};
  EXPECT_TRUE(correlate_xids(fleet).empty());
}

}  // namespace drift_test
}  // namespace gt
