// Drift and correlation across hosts, from reports built as JSON (the
// shape docs/json.md documents), as the fleet path receives them.
#include "fleet/drift.h"

#include <gtest/gtest.h>

#include <sstream>

#include "fleet/correlate.h"

namespace gt {
namespace drift_test {

using J = nlohmann::ordered_json;

J gpu(const std::string& vbios, const J& power_w = 700) {
  return J{{"name", "NVIDIA H100 80GB HBM3"},         {"vbios_version", vbios},
           {"power", {{"limit_w", power_w}}},         {"pcie", {{"link", {{"gen", {{"max", 5}}}}}}},
           {"ecc", {{"mode", {{"current", true}}}}},  {"persistence_mode", true},
           {"mig", {{"mode", {{"current", false}}}}}, {"mig_devices", nullptr}};
}

HostReport host(const std::string& name, const std::string& driver = "590.48.01",
                const std::string& vbios = "96.00.99.00.01") {
  J r = {{"schema", "gpu-triage/report"},
         {"schema_version", 2},
         {"verdict", "OK"},
         {"findings", J::array()},
         {"driver_version", driver},
         {"cuda_driver_version", "13.1"},
         {"kernel_module_version", driver},
         {"nvml", {{"library_version", driver}}}};
  J gpus = J::array();
  for (int i = 0; i < 8; ++i) gpus.push_back(gpu(vbios));
  r["gpus"] = gpus;
  return host_report_from_json(name, "report", r);
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
  for (J& g : fleet[1].report["gpus"]) g["vbios_version"] = nullptr;  // did not say
  fleet[2].report["gpus"][7]["power"]["limit_w"] = nullptr;           // one GPU did not say
  fleet.push_back(host_unknown("d", "ssh", "ssh: connect to host d port 22: Connection refused"));
  HostReport future = host("e");
  future.report["schema_version"] = 3;
  fleet.push_back(future);
  HostReport garbage = host_report_from_json("f", "report", J("not json at all"));
  fleet.push_back(garbage);
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
  fleet[1].report["gpus"][0]["ecc"]["mode"]["current"] = false;
  DriftReport d = find_drift(fleet);
  ASSERT_EQ(names(d), std::vector<std::string>{"ecc_mode"});
  EXPECT_FALSE(d.differing[0].majority);
  EXPECT_EQ(d.differing[0].others[1].value, "on on 7 GPUs, off on 1 GPU");
}

HostReport with_xid(const std::string& name, int code, const std::string& time) {
  HostReport h = host(name);
  h.report["verdict"] = "WARNING";
  h.verdict = "WARNING";
  h.report["kernel_log"] = {{"events", J::array({J{{"kind", "xid"},
                                                   {"code", code},
                                                   {"pci_bus_id", "0000:19:00.0"},
                                                   {"time", time},
                                                   {"count", 3}}})}};
  h.report["findings"] =
      J::array({J{{"id", "gpu.xid." + std::to_string(code)}, {"severity", "warning"}}});
  return h;
}

TEST(Correlate, FiveHostsWithXid31InOneMinuteAreOneFleetFinding) {
  std::vector<HostReport> fleet;
  for (int i = 0; i < 5; ++i)
    fleet.push_back(with_xid("n" + std::to_string(i), 31,
                             "2026-11-30T03:12:" + std::to_string(10 + i * 9) + "Z"));
  fleet.push_back(with_xid("late", 31, "2026-11-30T05:00:00Z"));  // another hour: its own GPU
  fleet.push_back(host("quiet"));
  std::vector<FleetFinding> f = correlate_xids(fleet);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "fleet.xid_correlated.31");
  EXPECT_EQ(f[0].hosts, (std::vector<std::string>{"n0", "n1", "n2", "n3", "n4"}));
  EXPECT_EQ(f[0].events, 15u);
  EXPECT_NE(f[0].title.find("likely the job"), std::string::npos);
  apply_fleet_findings(f, fleet);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(fleet[i].verdict, "OK") << i;
    EXPECT_EQ(fleet[i].report["findings"][0]["explained_by"], "fleet.xid_correlated.31");
  }
  EXPECT_EQ(fleet[5].verdict, "WARNING");
}

TEST(Correlate, OneHostAloneOrAGpuXidIsNotAFleetEvent) {
  std::vector<HostReport> fleet = {with_xid("a", 31, "2026-11-30T03:12:10Z"),
                                   with_xid("b", 79, "2026-11-30T03:12:11Z"),
                                   with_xid("c", 79, "2026-11-30T03:12:12Z")};
  EXPECT_TRUE(correlate_xids(fleet).empty());
}

}  // namespace drift_test
}  // namespace gt
