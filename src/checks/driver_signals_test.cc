// The driver's own signals: recovery action, ECC history, fabric and
// NVLink, thermal margin and time in limits. Each fires on its state, with
// its numbers, and stays quiet on a healthy node and on normal operation.
#include <gtest/gtest.h>

#include <algorithm>

#include "checks/plan.h"
#include "checks/registry.h"
#include "checks/test_node.h"

namespace gt {
namespace driver_signals_test {

/// Judges `r` afresh (so a test may ask for several ids) and returns the
/// findings with `id`.
std::vector<const Finding*> judged(Report& r, const std::string& id) {
  r.findings.clear();
  r.plan.clear();
  judge(r, CheckOptions{});
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(RecoveryAction, RebootWithEveryCounterZeroIsCriticalAndThePlanReboots) {
  Report r = healthy_node();
  r.snapshot.gpus[2].recovery.action = RecoveryAction::kNodeReboot;
  r.snapshot.gpus[2].recovery.action_code = 2;
  auto f = judged(r, "gpu.recovery_action");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kCritical);
  EXPECT_EQ(f[0]->subject.gpu_index, 2u);
  EXPECT_TRUE(contains(f[0]->evidence, "volatile 0, aggregate 0")) << f[0]->evidence;
  EXPECT_EQ(r.verdict, Severity::kCritical);
  ASSERT_FALSE(r.plan.empty());
  EXPECT_EQ(r.plan[0].finding_ids, std::vector<std::string>{"gpu.recovery_action"});
  EXPECT_TRUE(contains(r.plan[0].text, "Drain"));
  // The evidence first (issue 37), then the reboot.
  EXPECT_TRUE(contains(r.plan[0].commands.at(0), "gpu-triage bundle"));
  EXPECT_TRUE(contains(r.plan[0].commands.at(1), "reboot"));
}

TEST(RecoveryAction, NoneIsSilentAndAnUnnamedValueIsNeverHealthy) {
  Report ok = healthy_node();
  for (GpuState& g : ok.snapshot.gpus) g.recovery.action = RecoveryAction::kNone;
  EXPECT_TRUE(judged(ok, "gpu.recovery_action").empty());
  EXPECT_EQ(ok.verdict, Severity::kOk);

  Report r = healthy_node();
  r.snapshot.gpus[0].recovery.action = RecoveryAction::kUnknown;
  r.snapshot.gpus[0].recovery.action_code = 5;
  auto f = judged(r, "gpu.recovery_action");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kWarning);
  EXPECT_TRUE(contains(f[0]->title, "recovery action 5")) << f[0]->title;
}

TEST(RecoveryAction, GradedByValueAsDcgmDoes) {
  struct Case {
    RecoveryAction action;
    Severity severity;
    const char* command_part;
  } cases[] = {{RecoveryAction::kGpuReset, Severity::kCritical, "--gpu-reset -i 1"},
               {RecoveryAction::kDrainAndReset, Severity::kCritical, "--gpu-reset -i 1"},
               {RecoveryAction::kDrainP2p, Severity::kWarning, "topo"},
               {RecoveryAction::kSystemReboot, Severity::kCritical, "reboot"}};
  for (const Case& c : cases) {
    Report r = healthy_node();
    r.snapshot.gpus[1].recovery.action = c.action;
    auto f = judged(r, "gpu.recovery_action");
    ASSERT_EQ(f.size(), 1u) << recovery_action_name(c.action);
    EXPECT_EQ(f[0]->severity, c.severity) << recovery_action_name(c.action);
    EXPECT_TRUE(contains(f[0]->commands.at(0), c.command_part)) << recovery_action_name(c.action);
  }
}

TEST(RecoveryAction, OlderFlagsFromACaptureAndXid154AreQuoted) {
  Report r = healthy_node();
  r.snapshot.gpus[3].recovery.reset_required = true;
  r.snapshot.gpus[3].recovery.drain_and_reset_recommended = false;
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = 154;
  e.boot = LogBoot::kPrevious;
  e.pci_bus_id = "0000:1c:00.0";
  e.detail = "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)";
  r.snapshot.kernel_log->events.push_back(e);
  auto f = judged(r, "gpu.recovery_action");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kCritical);
  EXPECT_TRUE(contains(f[0]->evidence, "reset required yes"));
  EXPECT_EQ(f[0]->joined_ids, std::vector<std::string>{"gpu.xid.154"});
  EXPECT_TRUE(contains(f[0]->evidence, "gpu.xid.154: ")) << f[0]->evidence;
  for (const Finding& x : r.findings) EXPECT_NE(x.id, "gpu.xid.154") << "joined, not repeated";
}

TEST(EccHistory, LifetimeDoubleBitErrorsWarnWithTheNumbers) {
  Report r = healthy_node();
  GpuState& g = r.snapshot.gpus[4];
  g.ecc.aggregate_uncorrected = 4312;
  g.ecc.aggregate_corrected = 18;
  g.row_remapper_histogram = RowRemapperHistogram{639, 1, 0, 0, 0};
  auto f = judged(r, "ecc.aggregate_uncorrectable");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_GE(f[0]->severity, Severity::kWarning);
  EXPECT_TRUE(contains(f[0]->title, "4312")) << f[0]->title;
  EXPECT_TRUE(contains(f[0]->evidence, "aggregate 4312, volatile 0")) << f[0]->evidence;
  EXPECT_TRUE(judged(r, "ecc.remap_no_spare").empty());
  EXPECT_GE(r.verdict, Severity::kWarning);
}

TEST(EccHistory, VolatileErrorsAreTheCriticalFindingsNotAHistoryNote) {
  Report r = healthy_node();
  r.snapshot.gpus[0].ecc.volatile_uncorrected = 2;
  r.snapshot.gpus[0].ecc.aggregate_uncorrected = 2;
  EXPECT_TRUE(judged(r, "ecc.aggregate_uncorrectable").empty());
  EXPECT_EQ(judged(r, "ecc.volatile_uncorrectable").size(), 1u);
}

TEST(EccHistory, NoSpareRowsAndDoubleBitPagesPastTheSoftLimit) {
  Report r = healthy_node();
  r.snapshot.gpus[1].row_remapper_histogram = RowRemapperHistogram{630, 5, 2, 1, 2};
  r.snapshot.gpus[2].retired_pages = {3, 16, false};
  r.snapshot.gpus[3].retired_pages = {10, 50, false};  // at the RMA limit: that finding says it
  auto spare = judged(r, "ecc.remap_no_spare");
  ASSERT_EQ(spare.size(), 1u);
  EXPECT_TRUE(contains(spare[0]->title, "2 memory banks"));
  auto dbe = judged(r, "ecc.retired_pages_dbe");
  ASSERT_EQ(dbe.size(), 1u);
  EXPECT_EQ(dbe[0]->subject.gpu_index, 2u);
  EXPECT_EQ(judged(r, "ecc.retired_pages_limit").size(), 1u);
}

FabricInfo completed_fabric() {
  FabricInfo f;
  f.state = FabricState::kCompleted;
  f.status = "success";
  f.bandwidth_degraded = false;
  f.route_unhealthy = false;
  return f;
}

TEST(Fabric, DegradedOnOneOfEightIsOneWarning) {
  Report r = healthy_node();
  for (GpuState& g : r.snapshot.gpus) g.fabric = completed_fabric();
  r.snapshot.gpus[6].fabric->bandwidth_degraded = true;
  r.snapshot.nvidia_services_read = true;
  auto f = judged(r, "fabric.unhealthy");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kWarning);
  EXPECT_EQ(f[0]->subject.gpu_index, 6u);
  EXPECT_TRUE(contains(f[0]->title, "bandwidth degraded"));
  EXPECT_TRUE(contains(f[0]->evidence, "no Fabric Manager process")) << f[0]->evidence;
  EXPECT_TRUE(judged(r, "fabric.not_registered").empty());
}

TEST(Fabric, RegistrationStatesAndPcieBoards) {
  Report r = healthy_node();
  for (GpuState& g : r.snapshot.gpus) g.fabric = completed_fabric();
  r.snapshot.gpus[0].fabric->state = FabricState::kNotStarted;
  r.snapshot.gpus[1].fabric->status = "NVML_ERROR_UNKNOWN";
  r.snapshot.gpus[2].fabric->state = FabricState::kInProgress;
  r.snapshot.gpus[3].fabric->state = FabricState::kNotSupported;
  r.snapshot.gpus[4].fabric->incorrect_configuration = "insufficient_nvlinks";
  auto f = judged(r, "fabric.not_registered");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0]->severity, Severity::kCritical);
  // The one finding says what CUDA does there (issue 34 item 3): no second
  // readiness finding for the same cause.
  EXPECT_NE(f[0]->title.find("CUDA will fail with 802"), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->action.find("802 CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos);
  auto bad = judged(r, "fabric.unhealthy");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->severity, Severity::kCritical);

  Report pcie = healthy_node();  // no fabric at all
  EXPECT_TRUE(judged(pcie, "fabric.not_registered").empty());
}

/// An HGX A100 (pre-Hopper: NVML reports no fabric state) with its six
/// NVSwitches on the bus, the node's processes read.
Report a100_hgx() {
  Report r = healthy_node();
  for (GpuState& g : r.snapshot.gpus) {
    g.name = "NVIDIA A100-SXM4-80GB";
    g.fabric.reset();
    g.processes = std::vector<GpuProcess>{};
  }
  r.snapshot.nvswitches = std::vector<std::string>{"0000:c4:00.0", "0000:c5:00.0", "0000:c6:00.0",
                                                   "0000:c7:00.0", "0000:c8:00.0", "0000:c9:00.0"};
  r.snapshot.nvidia_services_read = true;
  return r;
}

TEST(Fabric, NvSwitchesOnTheBusWithoutFabricManagerAre802) {
  Report r = a100_hgx();
  auto f = judged(r, "fabric.not_registered");
  ASSERT_EQ(f.size(), 8u);  // one per GPU, as NVML's own registration state says it
  EXPECT_EQ(f[0]->severity, Severity::kCritical);
  EXPECT_TRUE(contains(f[0]->title, "CUDA will fail with 802")) << f[0]->title;
  EXPECT_TRUE(contains(f[0]->evidence, "6 NVSwitch devices on the PCI bus (0000:c4:00.0"));
  EXPECT_TRUE(contains(f[0]->evidence, "no Fabric Manager process runs")) << f[0]->evidence;

  // Fabric Manager runs: nothing.
  Report running = a100_hgx();
  running.snapshot.nvidia_services.push_back(
      NvidiaService{"Fabric Manager", 2210, "nv-fabricmanage", "nvidia-fabricmanager.service"});
  EXPECT_TRUE(judged(running, "fabric.not_registered").empty());
  // A CUDA process holds memory: CUDA started, so the fabric is ready.
  Report busy = a100_hgx();
  GpuProcess p;
  p.pid = 4100;
  p.type = "compute";
  p.used_memory_bytes = uint64_t(2) << 30;
  busy.snapshot.gpus[0].processes->push_back(p);
  EXPECT_TRUE(judged(busy, "fabric.not_registered").empty());
  // Unknown: the processes were not read, or the bus was not.
  Report capture = a100_hgx();
  capture.snapshot.nvidia_services_read = false;
  EXPECT_TRUE(judged(capture, "fabric.not_registered").empty());
  Report no_bus = a100_hgx();
  no_bus.snapshot.nvswitches.reset();
  EXPECT_TRUE(judged(no_bus, "fabric.not_registered").empty());
}

TEST(Fabric, FabricManagerSeenByItsUnitOrItsSocket) {
  // Its systemd unit active: it runs, whatever the process list says.
  Report unit = a100_hgx();
  unit.snapshot.fabric_manager = FabricManagerSigns{true, std::nullopt, "127.0.0.1:6666"};
  EXPECT_TRUE(judged(unit, "fabric.not_registered").empty());
  // On the host, nothing running and nothing listening: 802, the signs said.
  Report host = a100_hgx();
  host.snapshot.fabric_manager = FabricManagerSigns{false, false, "127.0.0.1:6666"};
  auto f = judged(host, "fabric.not_registered");
  ASSERT_EQ(f.size(), 8u);
  EXPECT_EQ(f[0]->severity, Severity::kCritical);
  EXPECT_TRUE(contains(f[0]->evidence,
                       "its systemd unit not active, nothing listening on its "
                       "command socket 127.0.0.1:6666"))
      << f[0]->evidence;
  // In a container the host's processes are not seen, nor its sockets
  // without the host's network: unknown, said as info, never "not running".
  Report boxed = a100_hgx();
  boxed.snapshot.cuda.emplace().devices.emplace().in_container = true;
  boxed.snapshot.fabric_manager = FabricManagerSigns{std::nullopt, false, "127.0.0.1:6666"};
  auto unknown = judged(boxed, "fabric.not_registered");
  ASSERT_EQ(unknown.size(), 8u);
  EXPECT_EQ(unknown[0]->severity, Severity::kInfo);
  EXPECT_TRUE(contains(unknown[0]->title, "whether Fabric Manager runs cannot be read here"));
  EXPECT_TRUE(contains(unknown[0]->evidence, "whether Fabric Manager runs is unknown here"));
  EXPECT_FALSE(contains(unknown[0]->evidence, "no Fabric Manager process runs"));
  // With the host's network, its listener shows it running.
  boxed.snapshot.fabric_manager->listening = true;
  EXPECT_TRUE(judged(boxed, "fabric.not_registered").empty());
}

TEST(Fabric, NvmlsOwnRegistrationStateIsTheOneFinding) {
  // Hopper: NVML says not started; the bus adds no second finding.
  Report r = a100_hgx();
  for (GpuState& g : r.snapshot.gpus) {
    g.fabric = completed_fabric();
    g.fabric->state = FabricState::kNotStarted;
  }
  auto f = judged(r, "fabric.not_registered");
  ASSERT_EQ(f.size(), 8u);
  EXPECT_TRUE(contains(f[0]->evidence, "fabric state"));
}

std::vector<NvLink> links(uint32_t n) {
  std::vector<NvLink> v(n);
  for (uint32_t i = 0; i < n; ++i) {
    v[i].link = i;
    v[i].active = true;
    v[i].errors_growth = {0, 0, 0, 0};
  }
  return v;
}

TEST(NvLink, ALinkDownAgainstItsSiblings) {
  Report r = healthy_node();
  for (GpuState& g : r.snapshot.gpus) {
    g.nvlinks = links(18);
    g.fabric = completed_fabric();  // an NVSwitch system: every link is cabled
  }
  (*r.snapshot.gpus[5].nvlinks)[7].active = false;
  // A link no GPU uses is nobody's fault.
  for (GpuState& g : r.snapshot.gpus) (*g.nvlinks)[17].active = false;
  auto f = judged(r, "nvlink.link_down");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->subject.gpu_index, 5u);
  EXPECT_EQ(f[0]->severity, Severity::kCritical);
  EXPECT_TRUE(contains(f[0]->title, "NVLink 7 down")) << f[0]->title;
  EXPECT_TRUE(contains(f[0]->evidence, "16 of 18 links active")) << f[0]->evidence;
}

TEST(NvLink, WithoutAFabricABridgeMayBeMissingByDesign) {
  // 4 PCIe boards: GPUs 0-1 bridged on 12 links, GPUs 2-3 on 8.
  Report r = healthy_node(4);
  for (GpuState& g : r.snapshot.gpus) g.nvlinks = links(12);
  for (uint32_t i = 2; i < 4; ++i)
    for (uint32_t l = 8; l < 12; ++l) (*r.snapshot.gpus[i].nvlinks)[l].active = false;
  auto f = judged(r, "nvlink.link_down");
  ASSERT_EQ(f.size(), 2u);
  for (const Finding* x : f) {
    EXPECT_EQ(x->severity, Severity::kWarning) << "never a critical on a bridged board";
    EXPECT_TRUE(contains(x->evidence, "inactive by design")) << x->evidence;
  }
}

TEST(NvLink, ErrorsJudgedOnGrowthOverTheWindowNotTheirTotal) {
  Report r = healthy_node();
  r.snapshot.sample_window_s = 2;
  for (GpuState& g : r.snapshot.gpus) g.nvlinks = links(4);
  (*r.snapshot.gpus[0].nvlinks)[1].errors = {90000, 12, 400, 3};      // old totals, no growth
  (*r.snapshot.gpus[1].nvlinks)[2].errors_growth = {150, 0, 0, 0};    // 75/s: under DCGM's 100/s
  (*r.snapshot.gpus[2].nvlinks)[3].errors_growth = {150, 100, 0, 0};  // 125/s
  (*r.snapshot.gpus[3].nvlinks)[0].errors_growth = {0, 0, 0, 1};      // a recovery
  auto f = judged(r, "nvlink.errors_growing");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]->subject.gpu_index, 2u);
  EXPECT_EQ(f[1]->subject.gpu_index, 3u);
  EXPECT_TRUE(contains(f[1]->evidence, "+1 recovery"));
}

TEST(Thermal, MarginAgainstTheGpusOwnThreshold) {
  Report r = healthy_node();
  r.snapshot.gpus[1].thermal.slowdown_margin_c = 3;
  r.snapshot.gpus[2].thermal.slowdown_margin_c = 40;
  r.snapshot.gpus[3].thermal.memory_temperature_c = 93;
  r.snapshot.gpus[3].thermal.memory_max_threshold_c = 95;
  auto f = judged(r, "thermal.near_slowdown");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(contains(f[0]->title, "3 C from its slowdown threshold"));
  EXPECT_TRUE(contains(f[1]->title, "memory at 93 C"));
}

TEST(Limits, PowerBrakeForMostOfTheWindow) {
  Report r = healthy_node();
  r.snapshot.gpus[3].limit_time.hw_power_brake_share = 0.9;
  r.snapshot.gpus[3].clock_event_reasons = 0x80;
  auto f = judged(r, "clocks.power_brake");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(contains(f[0]->evidence, "held 90% of the")) << f[0]->evidence;
  EXPECT_EQ(r.verdict, Severity::kWarning);
}

TEST(Limits, NormalReasonsAndBlipsAreNeverFindings) {
  Report r = healthy_node();
  GpuState& g = r.snapshot.gpus[0];
  g.limit_time.sw_power_cap_share = 1.0;     // a busy GPU at its power cap: normal
  g.limit_time.low_utilization_share = 1.0;  // idle
  g.limit_time.hw_thermal_share = 0.02;      // measured, and short
  g.clock_event_reasons = 0x40 | 0x4 | 0x1;  // the last reading had it: the time says no
  r.snapshot.gpus[1].clock_event_reasons_samples = {0x1, 0x81, 0x1, 0x1, 0x1, 0x1};
  r.snapshot.gpus[1].clock_event_reasons = 0x1;
  r.snapshot.gpus[2].clock_event_reasons_samples = {0x8, 0x8, 0x8, 0x1};
  r.snapshot.gpus[2].clock_event_reasons = 0x1;
  judge(r, CheckOptions{});
  std::vector<std::string> clocks;
  for (const Finding& f : r.findings)
    if (f.id.starts_with("clocks."))
      clocks.push_back(f.id + "@" + std::to_string(*f.subject.gpu_index));
  EXPECT_EQ(clocks, std::vector<std::string>{"clocks.hw_slowdown@2"});
}

TEST(Limits, OneReadingIsSaidToBeOne) {
  Report r = healthy_node();
  r.snapshot.gpus[0].clock_event_reasons = 0x80;
  auto f = judged(r, "clocks.power_brake");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(contains(f[0]->evidence, "duration is unknown")) << f[0]->evidence;
}

}  // namespace driver_signals_test
}  // namespace gt
