// The driver's own signals read from real captures (tests/fixtures/real,
// SOURCES.md): the values those files hold. Values no capture shows come
// from small documents written here from the element names (nvml-abi.md
// 8.11).
#include "sources/smi_xml/smi_xml_health.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sources/smi_xml/smi_xml_parser.h"

namespace gt {
namespace smi_xml_health_test {

constexpr uint64_t kMiB = 1048576;

SmiXml parse_text(const std::string& text) {
  Result<SmiXml> x = parse_smi_xml(text);
  EXPECT_TRUE(x.ok()) << (x.ok() ? "" : x.error().message);
  return x.ok() ? *x : SmiXml{};
}

SmiXml real(const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fixtures/real/nvidia-smi-xml/" + name);
  if (!in) ADD_FAILURE() << "fixture missing from tests/fixtures/real: " << name;
  std::stringstream s;
  s << in.rdbuf();
  return parse_text(s.str());
}

/// One GPU with `body` as its elements.
GpuState one_gpu(const std::string& body) {
  SmiXml x = parse_text("<nvidia_smi_log><gpu id=\"00000000:19:00.0\">" + body +
                        "</gpu></nvidia_smi_log>");
  EXPECT_EQ(x.gpus.size(), 1u);
  return x.gpus.empty() ? GpuState{} : x.gpus[0];
}

TEST(SmiXmlHealth, Rtx3060At570) {
  const SmiXml x_g = real("telegraf-rtx-3060-570.124.04-v12-deprecated-fields.xml");
  const GpuState& g = x_g.gpus.at(0);
  EXPECT_EQ(g.recovery.action, RecoveryAction::kNone);
  EXPECT_EQ(g.recovery.action_text, "None");
  EXPECT_FALSE(g.recovery.action_code);     // only NVML gives the number
  EXPECT_FALSE(g.recovery.reset_required);  // "Requested functionality has been deprecated"
  EXPECT_FALSE(g.recovery.drain_and_reset_recommended);
  EXPECT_FALSE(g.fabric);  // state N/A
  EXPECT_EQ(g.thermal.shutdown_threshold_c, 98);
  EXPECT_EQ(g.thermal.slowdown_threshold_c, 95);
  EXPECT_EQ(g.thermal.gpu_max_threshold_c, 93);
  EXPECT_FALSE(g.thermal.memory_max_threshold_c);  // N/A on GDDR
  EXPECT_FALSE(g.thermal.memory_temperature_c);
  EXPECT_EQ(g.thermal.slowdown_margin_c, 95 - 42);   // tlimit N/A: absolute threshold - temp
  EXPECT_FALSE(g.row_remapper_histogram);            // <remapped_rows>N/A
  EXPECT_FALSE(g.mig_devices);                       // "None"
  EXPECT_FALSE(g.limit_time.sw_power_cap_total_us);  // no counters before 590
  EXPECT_TRUE(g.errors.empty());
}

TEST(SmiXmlHealth, RtxPro6000At590V13) {
  SmiXml x = real("telegraf-rtx-pro-6000-blackwell-maxq-590.44.01-v13.xml");
  const GpuState& g = x.gpus.at(0);
  EXPECT_EQ(g.recovery.action, RecoveryAction::kNone);
  EXPECT_FALSE(g.recovery.reset_required);  // gpu_reset_status absent in v13
  EXPECT_FALSE(g.fabric);                   // every fabric element N/A
  // Blackwell: T.Limit forms only, none of them in the absolute fields.
  EXPECT_FALSE(g.thermal.shutdown_threshold_c);
  EXPECT_FALSE(g.thermal.slowdown_threshold_c);
  EXPECT_FALSE(g.thermal.gpu_max_threshold_c);
  EXPECT_EQ(g.thermal.slowdown_margin_c, 68 - (-2));
  EXPECT_EQ(g.limit_time.sw_power_cap_total_us, 25483012608u);
  EXPECT_EQ(g.limit_time.sync_boost_total_us, 0u);
  EXPECT_EQ(g.limit_time.sw_thermal_total_us, 0u);
  EXPECT_EQ(g.limit_time.hw_thermal_total_us, 0u);
  EXPECT_EQ(g.limit_time.hw_power_brake_total_us, 0u);
  EXPECT_FALSE(g.limit_time.sw_power_cap_share);  // no share from one capture
  ASSERT_TRUE(g.row_remapper_histogram);
  EXPECT_EQ(g.row_remapper_histogram->max, 512u);
  EXPECT_EQ(g.row_remapper_histogram->none, 0u);
  EXPECT_FALSE(g.mig_devices);
  EXPECT_TRUE(g.errors.empty());
}

TEST(SmiXmlHealth, DualA5000At590EachGpuItsOwn) {
  SmiXml x = real("telegraf-dual-rtx-a5000-590.44.01-v13.xml");
  ASSERT_EQ(x.gpus.size(), 2u);
  EXPECT_EQ(x.gpus[0].limit_time.sw_power_cap_total_us, 31637354094u);
  EXPECT_EQ(x.gpus[1].limit_time.sw_power_cap_total_us, 31195898111u);
  // Ampere at 590: gpu_temp_tlimit N/A, absolute thresholds.
  EXPECT_EQ(x.gpus[0].thermal.slowdown_threshold_c, 95);
  EXPECT_EQ(x.gpus[0].thermal.slowdown_margin_c, 95 - 13);
  EXPECT_EQ(x.gpus[1].thermal.slowdown_margin_c, 95 - 15);
  EXPECT_EQ(x.gpus[1].row_remapper_histogram->max, 192u);
  EXPECT_EQ(x.gpus[1].recovery.action, RecoveryAction::kNone);
}

TEST(SmiXmlHealth, Rtx4090At535TLimitScale) {
  const SmiXml x_g = real("netdata-rtx-4090-535.86.05.xml");
  const GpuState& g = x_g.gpus.at(0);
  EXPECT_EQ(g.recovery.reset_required, false);           // "No"
  EXPECT_FALSE(g.recovery.drain_and_reset_recommended);  // "N/A"
  EXPECT_FALSE(g.recovery.action);                       // no gpu_recovery_action before 570
  EXPECT_FALSE(g.fabric);
  EXPECT_FALSE(g.thermal.shutdown_threshold_c);  // -7 C is on the T.Limit scale
  EXPECT_FALSE(g.thermal.slowdown_threshold_c);
  EXPECT_EQ(g.thermal.slowdown_margin_c, 43 - (-2));
  EXPECT_EQ(g.row_remapper_histogram->max, 192u);
  EXPECT_EQ(g.row_remapper_histogram->high, 0u);
}

TEST(SmiXmlHealth, A100MigDevicesAndHbmTemperature) {
  const SmiXml x_g = real("netdata-a100-sxm4-40gb-mig-510.47.03.xml");
  const GpuState& g = x_g.gpus.at(0);
  EXPECT_EQ(g.thermal.memory_temperature_c, 44);
  EXPECT_EQ(g.thermal.shutdown_threshold_c, 92);
  EXPECT_EQ(g.thermal.slowdown_threshold_c, 89);
  EXPECT_EQ(g.thermal.gpu_max_threshold_c, 85);
  EXPECT_EQ(g.thermal.memory_max_threshold_c, 95);
  EXPECT_EQ(g.thermal.slowdown_margin_c, 89 - 36);
  EXPECT_FALSE(g.row_remapper_histogram);  // remapped_rows N/A with MIG on
  ASSERT_TRUE(g.mig_devices);
  ASSERT_EQ(g.mig_devices->size(), 2u);
  for (uint32_t i = 0; i < 2; ++i) {
    const MigDevice& d = (*g.mig_devices)[i];
    EXPECT_EQ(d.index, i);
    EXPECT_EQ(d.gpu_instance_id, i + 1);
    EXPECT_EQ(d.compute_instance_id, 0u);
    EXPECT_EQ(d.memory_total_bytes, 19968 * kMiB);
    EXPECT_EQ(d.memory_reserved_bytes, 0u);
    EXPECT_EQ(d.memory_used_bytes, 19 * kMiB);
    EXPECT_EQ(d.memory_free_bytes, 19948 * kMiB);
    EXPECT_EQ(d.multiprocessor_count, 42u);
    EXPECT_EQ(d.volatile_sram_uncorrectable, 0u);
    EXPECT_FALSE(d.uuid);  // 510 prints none
  }
  EXPECT_TRUE(g.errors.empty());
}

TEST(SmiXmlHealth, V100AndK80Thresholds) {
  const SmiXml x_v = real("datakit-tesla-v100-pcie-32gb-460.39-4procs.xml");
  const GpuState& v = x_v.gpus.at(0);
  EXPECT_EQ(v.thermal.memory_temperature_c, 65);
  EXPECT_EQ(v.thermal.shutdown_threshold_c, 90);
  EXPECT_EQ(v.thermal.memory_max_threshold_c, 85);
  EXPECT_EQ(v.thermal.slowdown_margin_c, 87 - 66);
  EXPECT_FALSE(v.mig_devices);  // "None"
  EXPECT_FALSE(v.recovery.action);
  const SmiXml x_k = real("pai-tesla-k80-x4-azure-430.26-ecc-retired.xml");
  const GpuState& k = x_k.gpus.at(0);
  EXPECT_EQ(k.thermal.shutdown_threshold_c, 110);
  EXPECT_EQ(k.thermal.slowdown_threshold_c, 88);
  EXPECT_FALSE(k.thermal.gpu_max_threshold_c);  // N/A
  EXPECT_EQ(k.thermal.slowdown_margin_c, 88 - 64);
}

TEST(SmiXmlHealth, VgpuGuestHasNoMargin) {
  // "0 C" on a vGPU guest is "not available": no margin from it.
  const SmiXml x_g = real("telegraf-grid-p4-1q-vgpu-win-513.46.xml");
  const GpuState& g = x_g.gpus.at(0);
  EXPECT_FALSE(g.thermal.slowdown_threshold_c);
  EXPECT_FALSE(g.thermal.slowdown_margin_c);
}

TEST(SmiXmlHealth, CaptureTimestamp) {
  NodeSnapshot snap;
  apply_smi_xml(real("pai-tesla-k80-x4-azure-430.26-ecc-retired.xml"), snap);
  EXPECT_EQ(snap.captured_at, "Tue Dec  3 05:27:00 2019");
  EXPECT_EQ(snap.captured_at_unix_s, 1575350820);
  NodeSnapshot none;
  apply_smi_xml(parse_text("<nvidia_smi_log><timestamp>N/A</timestamp></nvidia_smi_log>"), none);
  EXPECT_FALSE(none.captured_at);
  EXPECT_FALSE(none.captured_at_unix_s);
}

// --- values no real capture shows ---

TEST(SmiXmlHealth, RecoveryRebootAndResetRequired) {
  GpuState g = one_gpu(
      "<gpu_reset_status><reset_required>Yes</reset_required>"
      "<drain_and_reset_recommended>No</drain_and_reset_recommended></gpu_reset_status>"
      "<gpu_recovery_action>Reboot</gpu_recovery_action>");
  EXPECT_EQ(g.recovery.action, RecoveryAction::kNodeReboot);
  EXPECT_EQ(g.recovery.action_text, "Reboot");
  EXPECT_EQ(g.recovery.reset_required, true);
  EXPECT_EQ(g.recovery.drain_and_reset_recommended, false);
}

TEST(SmiXmlHealth, RecoveryUnknownWordsAndErrors) {
  GpuState odd = one_gpu("<gpu_recovery_action>Call Support</gpu_recovery_action>");
  EXPECT_EQ(odd.recovery.action, RecoveryAction::kUnknown);  // never RecoveryAction::kNone
  EXPECT_EQ(odd.recovery.action_text, "Call Support");
  GpuState err = one_gpu(
      "<gpu_recovery_action>Unknown Error</gpu_recovery_action>"
      "<gpu_reset_status><reset_required>Maybe</reset_required></gpu_reset_status>");
  EXPECT_FALSE(err.recovery.action);
  EXPECT_FALSE(err.recovery.action_text);
  EXPECT_FALSE(err.recovery.reset_required);
  EXPECT_EQ(err.errors.size(), 1u);  // the error word is reported
  GpuState na = one_gpu("<gpu_recovery_action>[N/A]</gpu_recovery_action>");
  EXPECT_FALSE(na.recovery.action);
}

TEST(SmiXmlHealth, FabricCompletedAndDegraded) {
  GpuState g = one_gpu(
      "<fabric><state>Completed</state><status>Success</status><cliqueId>4026</cliqueId>"
      "<clusterUuid>9c6f5af3-53bf-49b5-a436-b66766c413c3</clusterUuid><health>"
      "<summary>Limited Capacity</summary><bandwidth>Degraded</bandwidth>"
      "<route_recovery_in_progress>False</route_recovery_in_progress>"
      "<route_unhealthy>True</route_unhealthy>"
      "<access_timeout_recovery>N/A</access_timeout_recovery>"
      "<incorrect_configuration>None</incorrect_configuration></health></fabric>");
  ASSERT_TRUE(g.fabric);
  EXPECT_EQ(g.fabric->state, FabricState::kCompleted);
  EXPECT_EQ(g.fabric->status, "success");
  EXPECT_EQ(g.fabric->clique_id, "4026");
  EXPECT_EQ(g.fabric->cluster_uuid, "9c6f5af3-53bf-49b5-a436-b66766c413c3");
  EXPECT_EQ(g.fabric->health_summary, FabricHealthSummary::kLimitedCapacity);
  EXPECT_EQ(g.fabric->bandwidth_degraded, true);
  EXPECT_EQ(g.fabric->route_recovery_in_progress, false);
  EXPECT_EQ(g.fabric->route_unhealthy, true);
  EXPECT_FALSE(g.fabric->access_timeout_recovery);
  EXPECT_EQ(g.fabric->incorrect_configuration, "none");
  EXPECT_FALSE(g.fabric->health_mask);  // only NVML gives the raw mask
}

TEST(SmiXmlHealth, FabricUnknownWordsAreNull) {
  GpuState g = one_gpu(
      "<fabric><state>Warming Up</state><status>N/A</status><health>"
      "<bandwidth>Half</bandwidth></health></fabric>");
  ASSERT_TRUE(g.fabric);
  EXPECT_FALSE(g.fabric->state);
  EXPECT_FALSE(g.fabric->status);
  EXPECT_FALSE(g.fabric->bandwidth_degraded);
  EXPECT_FALSE(one_gpu("<fabric><state>Not Supported</state></fabric>").fabric);
  EXPECT_FALSE(one_gpu("<fabric><state>In Progress</state></fabric>").fabric->status);
}

TEST(SmiXmlHealth, TLimitMarginOfThree) {
  GpuState g = one_gpu(
      "<temperature><gpu_temp>88 C</gpu_temp><gpu_temp_tlimit>1 C</gpu_temp_tlimit>"
      "<gpu_temp_max_tlimit_threshold>-7 C</gpu_temp_max_tlimit_threshold>"
      "<gpu_temp_slow_tlimit_threshold>-2 C</gpu_temp_slow_tlimit_threshold></temperature>");
  EXPECT_EQ(g.thermal.slowdown_margin_c, 3);
  EXPECT_FALSE(g.thermal.slowdown_threshold_c);
  EXPECT_FALSE(g.thermal.shutdown_threshold_c);
}

TEST(SmiXmlHealth, TemperaturesOutOfBoundsAreNull) {
  GpuState g = one_gpu(
      "<temperature><gpu_temp>50 C</gpu_temp><memory_temp>1e30 C</memory_temp>"
      "<gpu_temp_slow_threshold>nan C</gpu_temp_slow_threshold></temperature>");
  EXPECT_FALSE(g.thermal.memory_temperature_c);
  EXPECT_FALSE(g.thermal.slowdown_threshold_c);
  EXPECT_FALSE(g.thermal.slowdown_margin_c);
  EXPECT_EQ(g.errors.size(), 2u);
}

TEST(SmiXmlHealth, MigProcessesKeepTheirInstanceIds) {
  GpuState g = one_gpu(
      "<mig_devices><mig_device><index>0</index><gpu_instance_id>2</gpu_instance_id>"
      "<compute_instance_id>1</compute_instance_id>"
      "<fb_memory_usage><total>[N/A]</total><used>N/A</used></fb_memory_usage>"
      "<ecc_error_count><volatile_count><sram_uncorrectable>3</sram_uncorrectable>"
      "</volatile_count></ecc_error_count></mig_device></mig_devices>"
      "<processes><process_info><gpu_instance_id>2</gpu_instance_id>"
      "<compute_instance_id>1</compute_instance_id><pid>13526</pid><type>C</type>"
      "<process_name>memhog</process_name><used_memory>13526 MiB</used_memory>"
      "</process_info></processes>");
  ASSERT_TRUE(g.mig_devices);
  const MigDevice& d = g.mig_devices->at(0);
  EXPECT_EQ(d.gpu_instance_id, 2u);
  EXPECT_EQ(d.compute_instance_id, 1u);
  EXPECT_FALSE(d.memory_total_bytes);
  EXPECT_FALSE(d.memory_used_bytes);
  EXPECT_EQ(d.volatile_sram_uncorrectable, 3u);
  ASSERT_EQ(g.processes->size(), 1u);
  EXPECT_EQ(g.processes->at(0).gpu_instance_id, 2u);
  EXPECT_EQ(g.processes->at(0).compute_instance_id, 1u);
}

TEST(SmiXmlHealth, CountersAndHistogramUnknownsAreNull) {
  GpuState g = one_gpu(
      "<clocks_event_reasons_counters>"
      "<clocks_event_reasons_counters_sw_power_cap>N/A</clocks_event_reasons_counters_sw_power_cap>"
      "<clocks_event_reasons_counters_hw_therm_slowdown>12 "
      "us</clocks_event_reasons_counters_hw_therm_slowdown>"
      "</clocks_event_reasons_counters><remapped_rows><row_remapper_histogram>"
      "<row_remapper_histogram_max>N/A</row_remapper_histogram_max>"
      "<row_remapper_histogram_none>2 bank(s)</row_remapper_histogram_none>"
      "</row_remapper_histogram></remapped_rows>");
  EXPECT_FALSE(g.limit_time.sw_power_cap_total_us);
  EXPECT_EQ(g.limit_time.hw_thermal_total_us, 12u);
  ASSERT_TRUE(g.row_remapper_histogram);
  EXPECT_FALSE(g.row_remapper_histogram->max);
  EXPECT_EQ(g.row_remapper_histogram->none, 2u);
}

}  // namespace smi_xml_health_test
}  // namespace gt
