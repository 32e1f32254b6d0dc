#include "sources/smi_xml/smi_xml_parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "checks/registry.h"
#include "fleet/fleet_report.h"
#include "render/golden.h"
#include "render/table_report.h"
#include "report/json_report.h"
#include "sources/smi_xml/smi_text.h"

namespace gt {
namespace smi_xml_parser_test {

constexpr uint64_t kMiB = 1048576;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fixtures/real/nvidia-smi-xml/" + name);
  if (!in) ADD_FAILURE() << "fixture missing from tests/fixtures/real: " << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SmiXml parse(const std::string& name) {
  std::string text = fixture(name);
  EXPECT_FALSE(text.empty()) << name;
  Result<SmiXml> x = parse_smi_xml(text);
  EXPECT_TRUE(x.ok()) << (x.ok() ? "" : x.error().message);
  return x.ok() ? *x : SmiXml{};
}

const std::vector<std::string> kFixtures = {
    "datakit-tesla-v100-pcie-32gb-460.39-4procs.xml",
    "netdata-a100-sxm4-40gb-mig-510.47.03.xml",
    "netdata-rtx-2080-win-516.59-26procs.xml",
    "netdata-rtx-4090-535.86.05.xml",
    "pai-geforce-gt730-384.111-v9-trimmed.xml",
    "pai-tesla-k80-x4-azure-430.26-ecc-retired.xml",
    "telegraf-a10g-515.105.01.xml",
    "telegraf-dual-rtx-a5000-590.44.01-v13.xml",
    "telegraf-grid-p4-1q-vgpu-win-513.46.xml",
    "telegraf-quadro-p400-418.43-nodoctype.xml",
    "telegraf-rtx-3060-570.124.04-v12-deprecated-fields.xml",
    "telegraf-rtx-3080-win-536.40-v12.xml",
    "telegraf-rtx-pro-6000-blackwell-maxq-590.44.01-v13.xml",
    "telegraf-tesla-t4-515.105.01.xml",
};

TEST(SmiXml, V100FourProcessesUnderLoad) {
  SmiXml x = parse("datakit-tesla-v100-pcie-32gb-460.39-4procs.xml");
  EXPECT_EQ(x.dtd_version, 11);
  EXPECT_EQ(x.driver_version, "460.39");
  EXPECT_EQ(x.cuda_version, "11.2");
  ASSERT_EQ(x.gpus.size(), 1u);
  const GpuState& g = x.gpus[0];
  EXPECT_EQ(g.name, "Tesla V100-PCIE-32GB");
  EXPECT_EQ(g.pci_bus_id, "00000000:21:01.0");
  EXPECT_EQ(g.pci_device_id, 0x1DB610DEu);
  EXPECT_EQ(g.serial, "0324418086185");
  EXPECT_EQ(g.memory_total_bytes, 32510 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 12311 * kMiB);
  EXPECT_EQ(g.memory_free_bytes, 20199 * kMiB);
  EXPECT_FALSE(g.memory_reserved_bytes);  // no <reserved> before R510
  EXPECT_EQ(g.utilization_gpu_pct->mean, 91);
  EXPECT_EQ(g.utilization_gpu_pct->samples, 1);
  EXPECT_EQ(g.utilization_memory_pct->max, 47);
  EXPECT_EQ(g.temperature_c, 66);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 170.16);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 250.0);
  EXPECT_FALSE(g.fan_speed_pct);  // N/A, not 0
  EXPECT_EQ(g.pstate, 0u);
  EXPECT_EQ(g.persistence_mode, false);
  EXPECT_EQ(g.ecc_mode_current, true);
  EXPECT_EQ(g.ecc.volatile_corrected, 0u);
  EXPECT_EQ(g.ecc.aggregate_uncorrected, 0u);
  EXPECT_EQ(g.retired_pages.single_bit, 0u);
  EXPECT_EQ(g.retired_pages.pending, false);
  EXPECT_FALSE(g.remapped_rows.correctable);  // remapped_rows N/A on Volta
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 4u);
  EXPECT_EQ((*g.processes)[0].pid, 4027538u);
  EXPECT_EQ((*g.processes)[0].type, "compute");
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, 3214 * kMiB);
  EXPECT_EQ((*g.processes)[0].cmdline, "mtopen-plugin:worker");
  EXPECT_FALSE((*g.processes)[0].gpu_instance_id);
  EXPECT_TRUE(g.errors.empty());
}

TEST(SmiXml, A100MigEnabled) {
  SmiXml x = parse("netdata-a100-sxm4-40gb-mig-510.47.03.xml");
  ASSERT_EQ(x.gpus.size(), 1u);
  const GpuState& g = x.gpus[0];
  EXPECT_EQ(g.name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(g.mig_mode_current, true);
  EXPECT_EQ(g.mig_mode_pending, true);
  EXPECT_FALSE(g.utilization_gpu_pct);  // N/A in MIG mode
  EXPECT_EQ(g.memory_total_bytes, 40960 * kMiB);
  EXPECT_EQ(g.memory_reserved_bytes, 605 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 38 * kMiB);
  EXPECT_FALSE(g.ecc.volatile_corrected);  // every volatile counter N/A
  EXPECT_EQ(g.ecc.aggregate_corrected, 0u);
  EXPECT_EQ(g.ecc.aggregate_uncorrected, 0u);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 66.92);
  ASSERT_TRUE(g.processes);
  EXPECT_TRUE(g.processes->empty());
}

TEST(SmiXml, WindowsWddm26ProcessesWithoutMemory) {
  SmiXml x = parse("netdata-rtx-2080-win-516.59-26procs.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 2080");
  ASSERT_EQ(g.processes->size(), 26u);
  for (const GpuProcess& p : *g.processes) {
    EXPECT_EQ(p.type, "compute+graphics");
    EXPECT_FALSE(p.used_memory_bytes);  // N/A on WDDM
  }
  EXPECT_FALSE((*g.processes)[1].cmdline);  // empty <process_name>
  EXPECT_FALSE(g.persistence_mode);         // N/A on Windows
  EXPECT_EQ(g.pcie.current_width, 8u);
  EXPECT_EQ(g.pcie.max_width, 16u);
  EXPECT_EQ(g.fan_speed_pct, 37u);
  EXPECT_FALSE(g.ecc_mode_current);
}

TEST(SmiXml, Rtx4090SplitPowerReadingsAndEventReasons) {
  SmiXml x = parse("netdata-rtx-4090-535.86.05.xml");
  EXPECT_EQ(x.dtd_version, 12);
  const GpuState& g = x.gpus.at(0);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 26.84);   // gpu_power_readings, not the N/A module one
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 450.0);  // current_power_limit
  EXPECT_EQ(g.clock_event_reasons, 0x1u);     // gpu_idle
  EXPECT_EQ(g.clock_event_reasons_supported, 0x1FFu);
  EXPECT_EQ(g.pcie.device_max_gen, 4u);
  EXPECT_EQ(g.pcie.max_gen, 3u);
  EXPECT_EQ(g.remapped_rows.correctable, 0u);
  EXPECT_EQ(g.remapped_rows.pending, false);
  EXPECT_EQ(g.persistence_mode, true);
  EXPECT_TRUE(g.processes->empty());
}

TEST(SmiXml, V9TrimmedGt730) {
  SmiXml x = parse("pai-geforce-gt730-384.111-v9-trimmed.xml");
  EXPECT_EQ(x.dtd_version, 9);
  EXPECT_FALSE(x.cuda_version);  // no <cuda_version> in v9
  EXPECT_EQ(x.attached_gpus, 1u);
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "GeForce GT 730");
  EXPECT_EQ(g.pci_bus_id, "00000000:01:00.0");  // from the id attribute
  EXPECT_FALSE(g.serial);
  EXPECT_FALSE(g.utilization_gpu_pct);
  EXPECT_FALSE(g.memory_total_bytes);
  EXPECT_FALSE(g.temperature_c);
  EXPECT_FALSE(g.processes);  // the file stops before <processes>
  EXPECT_TRUE(g.processes_error);
  EXPECT_EQ(g.persistence_mode, true);
}

TEST(SmiXml, K80FourGpusEccAndRetiredPages) {
  SmiXml x = parse("pai-tesla-k80-x4-azure-430.26-ecc-retired.xml");
  EXPECT_EQ(x.dtd_version, 10);
  EXPECT_FALSE(x.cuda_version);  // "Not Found"
  ASSERT_EQ(x.gpus.size(), 4u);
  // Document order is the index, whatever minor_number says (1,2,3,0).
  EXPECT_EQ(x.gpus[0].index, 0u);
  EXPECT_EQ(x.gpus[0].pci_bus_id, "00001580:00:00.0");
  EXPECT_EQ(x.gpus[3].pci_bus_id, "0000F8D6:00:00.0");
  EXPECT_EQ(x.gpus[0].ecc.aggregate_corrected, 7u);
  EXPECT_EQ(x.gpus[0].ecc.aggregate_uncorrected, 7u);
  EXPECT_EQ(x.gpus[1].ecc.aggregate_corrected, 34u);
  EXPECT_EQ(x.gpus[1].ecc.aggregate_uncorrected, 4u);
  EXPECT_EQ(x.gpus[0].ecc.volatile_uncorrected, 0u);
  EXPECT_EQ(x.gpus[0].retired_pages.single_bit, 1u);
  EXPECT_EQ(x.gpus[0].retired_pages.double_bit, 1u);
  EXPECT_EQ(x.gpus[2].retired_pages.single_bit, 0u);
  EXPECT_EQ(x.gpus[0].retired_pages.pending, false);  // pending_blacklist No
  EXPECT_EQ(x.gpus[0].processes->size(), 1u);
  EXPECT_EQ((*x.gpus[0].processes)[0].pid, 58813u);
  EXPECT_EQ((*x.gpus[0].processes)[0].used_memory_bytes, 576 * kMiB);
  EXPECT_TRUE(x.gpus[2].processes->empty());
  EXPECT_EQ(x.gpus[0].utilization_gpu_pct->mean, 99);
}

TEST(SmiXml, A10gOlderNamesThrottleReasonsAndPowerReadings) {
  SmiXml x = parse("telegraf-a10g-515.105.01.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "NVIDIA A10G");
  EXPECT_EQ(g.memory_total_bytes, 23028 * kMiB);
  EXPECT_EQ(g.memory_reserved_bytes, 435 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 22 * kMiB);  // nvidia-smi's Used, reserved apart
  EXPECT_EQ(g.memory_free_bytes, 22569 * kMiB);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 25.58);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 300.0);
  EXPECT_EQ(g.clock_event_reasons, 0x1u);  // from clocks_throttle_reasons
  EXPECT_EQ(g.temperature_c, 17);
  EXPECT_EQ(g.fan_speed_pct, 0u);  // a real 0 %
  EXPECT_EQ(g.pstate, 8u);
  EXPECT_EQ(g.pcie.current_gen, 1u);
  EXPECT_EQ(g.pcie.max_gen, 4u);
  EXPECT_EQ(g.pcie.current_width, 8u);
  EXPECT_FALSE(g.retired_pages.single_bit);  // N/A on Ampere
  EXPECT_EQ(g.remapped_rows.uncorrectable, 0u);
  EXPECT_EQ(g.remapped_rows.failure, false);
  ASSERT_EQ(g.processes->size(), 1u);
  EXPECT_EQ((*g.processes)[0].type, "graphics");
  EXPECT_EQ((*g.processes)[0].cmdline, "/usr/lib/xorg/Xorg");
}

TEST(SmiXml, DualA5000V13) {
  SmiXml x = parse("telegraf-dual-rtx-a5000-590.44.01-v13.xml");
  EXPECT_EQ(x.dtd_version, 13);
  EXPECT_EQ(x.cuda_version, "13.1");
  ASSERT_EQ(x.gpus.size(), 2u);
  EXPECT_EQ(x.gpus[0].pci_bus_id, "00000000:81:00.0");
  EXPECT_EQ(x.gpus[1].pci_bus_id, "00000000:C1:00.0");
  EXPECT_EQ(x.gpus[0].memory_used_bytes, 22437 * kMiB);
  EXPECT_EQ(x.gpus[1].memory_used_bytes, 17253 * kMiB);
  EXPECT_DOUBLE_EQ(*x.gpus[0].power_draw_w, 6.41);  // average_power_draw
  EXPECT_DOUBLE_EQ(*x.gpus[0].power_limit_w, 230.0);
  EXPECT_EQ((*x.gpus[1].processes)[0].used_memory_bytes, 17246 * kMiB);
  EXPECT_EQ(x.gpus[0].ecc_mode_current, false);
  EXPECT_FALSE(x.gpus[0].ecc.volatile_uncorrected);  // parity/secded N/A
  EXPECT_TRUE(x.gpus[0].errors.empty());
}

TEST(SmiXml, VgpuGuestOnWindows) {
  SmiXml x = parse("telegraf-grid-p4-1q-vgpu-win-513.46.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "GRID P4-1Q");
  EXPECT_FALSE(g.temperature_c);  // "0 C" in a vGPU guest means unknown
  EXPECT_FALSE(g.power_draw_w);
  EXPECT_FALSE(g.pcie.current_gen);
  EXPECT_EQ(g.memory_total_bytes, 1024 * kMiB);
  EXPECT_EQ(g.processes->size(), 13u);
  EXPECT_EQ(g.processes->back().cmdline, "C:\\Windows\\explorer.exe");
}

TEST(SmiXml, QuadroWithoutDoctype) {
  SmiXml x = parse("telegraf-quadro-p400-418.43-nodoctype.xml");
  EXPECT_FALSE(x.dtd_version);
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "Quadro P400");
  EXPECT_FALSE(g.power_draw_w);
  EXPECT_FALSE(g.remapped_rows.pending);  // no element at all
  EXPECT_EQ(g.memory_total_bytes, 1998 * kMiB);
  EXPECT_EQ(g.utilization_memory_pct->mean, 3);
}

TEST(SmiXml, Rtx3060DeprecatedFieldsAreNullNotErrors) {
  SmiXml x = parse("telegraf-rtx-3060-570.124.04-v12-deprecated-fields.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 3060");
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 11.60);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 170.0);
  EXPECT_TRUE(g.errors.empty());
  EXPECT_TRUE(g.processes->empty());
}

TEST(SmiXml, Rtx3080WindowsV12) {
  SmiXml x = parse("telegraf-rtx-3080-win-536.40-v12.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 22.78);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 336.0);
  EXPECT_EQ(g.processes->size(), 5u);
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, 550 * kMiB);
  EXPECT_EQ(g.utilization_memory_pct->mean, 37);
}

TEST(SmiXml, BlackwellV13) {
  SmiXml x = parse("telegraf-rtx-pro-6000-blackwell-maxq-590.44.01-v13.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.name, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition");
  EXPECT_EQ(g.memory_total_bytes, 97887 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 65720 * kMiB);
  EXPECT_EQ(g.pcie.device_max_gen, 5u);
  EXPECT_EQ((*g.processes)[0].pid, 116860u);
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, 65710 * kMiB);
}

TEST(SmiXml, BoardPartNumberAndNullForNA) {
  EXPECT_EQ(
      parse("telegraf-rtx-pro-6000-blackwell-maxq-590.44.01-v13.xml").gpus.at(0).board_part_number,
      "900-5G153-2200-000");
  SmiXml dual = parse("telegraf-dual-rtx-a5000-590.44.01-v13.xml");
  EXPECT_EQ(dual.gpus.at(1).board_part_number, "900-5G132-1700-000");
  // <board_part_number>N/A</board_part_number>: null, not "N/A".
  EXPECT_FALSE(parse("netdata-rtx-4090-535.86.05.xml").gpus.at(0).board_part_number);
  // No element at all (before the field was written): null.
  EXPECT_FALSE(
      parse("datakit-tesla-v100-pcie-32gb-460.39-4procs.xml").gpus.at(0).board_part_number);
}

TEST(SmiXml, T4TwoProcesses) {
  SmiXml x = parse("telegraf-tesla-t4-515.105.01.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.retired_pages.single_bit, 0u);
  EXPECT_EQ(g.retired_pages.pending, false);
  EXPECT_FALSE(g.remapped_rows.correctable);  // N/A on T4
  ASSERT_EQ(g.processes->size(), 2u);
  EXPECT_EQ((*g.processes)[1].type, "compute");
  EXPECT_EQ((*g.processes)[1].used_memory_bytes, 1005 * kMiB);
}

TEST(SmiXml, AttachedGpusDisagreeingWithTheDocumentIsAWarning) {
  SmiXml x = *parse_smi_xml(
      "<nvidia_smi_log><driver_version>550.1</driver_version><attached_gpus>8</attached_gpus>"
      "<gpu id=\"00000000:01:00.0\"><product_name>X</product_name>"
      "<fb_memory_usage><total>[Unknown Error]</total></fb_memory_usage>"
      "<temperature><gpu_temp>[GPU is lost]</gpu_temp></temperature></gpu></nvidia_smi_log>");
  EXPECT_EQ(x.attached_gpus, 8u);
  ASSERT_EQ(x.gpus.size(), 1u);
  ASSERT_EQ(x.warnings.size(), 1u);
  EXPECT_NE(x.warnings[0].find("attached_gpus 8"), std::string::npos);
  EXPECT_FALSE(x.gpus[0].memory_total_bytes);
  ASSERT_EQ(x.gpus[0].errors.size(), 1u);
  EXPECT_EQ(x.gpus[0].status, GpuStatus::kLost);
}

TEST(SmiXml, GarbageIsAnErrorNeverACrash) {
  for (const char* t :
       {"", "<", "<x/>", "not xml", "<nvidia_smi_log><gpu><pid>", "\xff\xfe<\x00"}) {
    Result<SmiXml> x = parse_smi_xml(t);
    if (x.ok()) {
      EXPECT_TRUE(x->gpus.empty());
    }
  }
  EXPECT_FALSE(parse_smi_xml("<x/>").ok());
}

/// Golden: the JSON report and the table of every fixture, judged.
TEST(SmiXml, GoldenReportPerFixture) {
  for (const std::string& name : kFixtures) {
    Report r;
    r.snapshot.source = Origin::kCapture;  // as --smi-xml sets them
    r.snapshot.capture_file = name;
    ASSERT_TRUE(fill_snapshot_from_smi_output(fixture(name), r.snapshot).ok()) << name;
    judge(r, CheckOptions{});
    r.exit_code = verdict_exit_code(report_verdict(r), false);
    std::string base = name.substr(0, name.size() - 4);
    expect_golden("smi_xml/" + base + ".json", report_to_json(r).dump(2) + "\n");
    std::ostringstream table;
    render_table(r, TableOptions{}, table);
    expect_golden("smi_xml/" + base + ".txt", table.str());
  }
}

}  // namespace smi_xml_parser_test
}  // namespace gt
