// Each check fires on the state it is about and stays quiet on a healthy
// node. Snapshots are built in code; the e2e tests cover the scenarios.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "checks/plan.h"
#include "checks/registry.h"
#include "checks/test_node.h"

namespace gt {
namespace checks_test {

std::vector<std::string> ids(Report& r, CheckOptions o = {}) {
  judge(r, o);
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.id);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& id) {
  return std::find(v.begin(), v.end(), id) != v.end();
}

TEST(Checks, HealthyNodeIsOkWithOnlyThePresenceFinding) {
  Report r = healthy_node();
  EXPECT_EQ(ids(r), std::vector<std::string>{"gpu.all_present"});
  EXPECT_EQ(r.verdict, Severity::kOk);
  EXPECT_EQ(verdict_word(r), "OK");
}

TEST(Checks, EveryFindingIdIsInTheCatalogueAndTheDocs) {
  std::ifstream doc(std::string(GT_SOURCE_DIR) + "/docs/checks.md");
  std::stringstream text;
  text << doc.rdbuf();
  for (const CheckSpec& c : check_catalogue()) {
    EXPECT_NE(text.str().find(std::string("`") + c.id + "`"), std::string::npos)
        << c.id << " is not documented in docs/checks.md";
  }
  EXPECT_NE(find_check("gpu.xid.79"), nullptr);
  EXPECT_EQ(find_check("no.such.id"), nullptr);
}

TEST(Checks, VersionMismatchNamesBothVersions) {
  Report r = healthy_node();
  r.snapshot.nvml.initialized = false;
  r.snapshot.nvml.init_error = NvmlInitError::kVersionMismatch;
  r.snapshot.nvml.library_version = "570.124.06";
  r.snapshot.kernel_module_version = "570.133.20";
  r.snapshot.gpus.clear();
  auto v = ids(r);
  ASSERT_TRUE(has(v, "nvml.version_mismatch"));
  EXPECT_NE(r.findings[0].evidence.find("570.133.20"), std::string::npos);
  EXPECT_NE(r.findings[0].evidence.find("570.124.06"), std::string::npos);
  EXPECT_EQ(r.verdict, Severity::kCritical);
}

TEST(Checks, AnAnsweringNvmlNamedForAnotherReleaseIsAContradictionAndAWarning) {
  Report r = healthy_node();
  r.snapshot.nvml.library_version = "565.57.01";
  r.snapshot.kernel_module_version = "590.48.01";
  auto v = ids(r);
  EXPECT_TRUE(has(v, "driver.version_contradiction"));
  EXPECT_EQ(r.verdict, Severity::kWarning);
}

TEST(Checks, NoDriverAndNoGpuIsUnknownNotCritical) {
  Report r;
  r.snapshot.nvml.error_message = "no NVIDIA driver";
  r.snapshot.nvml.init_error = NvmlInitError::kLibraryNotFound;
  judge(r, {});
  EXPECT_TRUE(r.could_not_check);
  EXPECT_EQ(verdict_word(r), "UNKNOWN");
  r = healthy_node();
  r.snapshot.nvml = NvmlStatus{};
  r.snapshot.nvml.init_error = NvmlInitError::kLibraryNotFound;
  r.snapshot.gpus.clear();
  EXPECT_TRUE(has(ids(r), "nvml.library_missing"));
  EXPECT_FALSE(r.could_not_check);
}

TEST(Checks, GpuMissingFromNvmlAndExpectedCount) {
  Report r = healthy_node();
  r.snapshot.gpus.pop_back();
  r.snapshot.gpu_count = 7;
  r.snapshot.pci_devices.back().driver.reset();
  auto v = ids(r);
  EXPECT_TRUE(has(v, "gpu.no_driver_bound"));
  EXPECT_TRUE(has(v, "gpu.count_mismatch"));
  EXPECT_FALSE(has(v, "gpu.all_present"));
  Report r2 = healthy_node();
  CheckOptions o;
  o.expect_gpus = 9;
  EXPECT_TRUE(has(ids(r2, o), "gpu.count_mismatch"));
  Report r3 = healthy_node();
  o.expect_gpus = 8;
  EXPECT_FALSE(has(ids(r3, o), "gpu.count_mismatch"));
}

TEST(Checks, LostAndUnresponsiveAreCritical) {
  Report r = healthy_node();
  r.snapshot.gpus[3].status = GpuStatus::kLost;
  r.snapshot.gpus[5].status = GpuStatus::kUnresponsive;
  r.snapshot.gpus[5].stuck_in_call = "nvmlDeviceGetPowerUsage";
  auto v = ids(r);
  EXPECT_TRUE(has(v, "gpu.lost"));
  EXPECT_TRUE(has(v, "gpu.unresponsive"));
  EXPECT_EQ(r.verdict, Severity::kCritical);
  EXPECT_EQ(r.findings[0].severity, Severity::kCritical);  // worst first
}

GpuProcess sglang_worker(uint32_t pid, int rank) {
  GpuProcess p;
  p.pid = pid;
  p.visible = true;
  p.name = "sglang::schedul";
  p.cmdline = "sglang::scheduler_TP" + std::to_string(rank);
  p.user = "svc-llm";
  p.used_memory_bytes = 75800000000ull;
  p.owner = ProcessOwner{OwnerKind::kSystemdUnit, "sglang.service", std::nullopt,
                         "/system.slice/sglang.service"};
  return p;
}

/// The after-crash server: one launcher (3141) under sglang.service
/// (Restart=always, started 41 s after boot) with one worker per GPU.
Server sglang_server(const NodeSnapshot& s) {
  Server sv;
  sv.id = "pid-3141";
  sv.kind = "SGLang";
  sv.recognised = true;
  sv.root_pid = 3141;
  sv.root_cmdline = "/usr/bin/python3 -m sglang.launch_server --tp 8";
  sv.tensor_parallel = 8;
  sv.owner_kind = OwnerKind::kSystemdUnit;
  sv.owner_name = "sglang.service";
  sv.restart_policy = "Restart=always";
  sv.restarts_when_signalled = true;
  sv.started_after_boot_s = 41;
  sv.auto_started = true;
  for (const GpuState& g : s.gpus)
    for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{})) {
      sv.members.push_back({p.pid, "compute", p.name, p.cmdline, {{g.index, p.used_memory_bytes}}});
      sv.gpus.push_back({g.index, p.used_memory_bytes});
    }
  return sv;
}

TEST(Checks, IdleServerIsOneFindingNamingItsUnitGpusAndMemory) {
  Report r = healthy_node();
  for (GpuState& g : r.snapshot.gpus) {
    g.memory_used_bytes = 75800000000ull;
    g.processes = std::vector<GpuProcess>{sglang_worker(3187 + g.index, g.index)};
  }
  r.snapshot.servers = std::vector<Server>{sglang_server(r.snapshot)};
  auto v = ids(r);
  ASSERT_EQ(std::count(v.begin(), v.end(), "memory.held_idle"), 1);
  const Finding* f = nullptr;
  for (const Finding& x : r.findings)
    if (x.id == "memory.held_idle") f = &x;
  EXPECT_EQ(f->subject.kind, "server");
  EXPECT_EQ(f->subject.server_id, "pid-3141");
  EXPECT_NE(f->title.find("SGLang server (systemd unit sglang.service, started 41 s after boot)"),
            std::string::npos)
      << f->title;
  EXPECT_NE(f->title.find("TP=8 over GPUs 0-7, 70.6 GiB each"), std::string::npos) << f->title;
  const PlanStep* step = nullptr;
  for (const PlanStep& p : r.plan)
    if (p.finding_ids == std::vector<std::string>{"memory.held_idle"}) step = &p;
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->commands, (std::vector<std::string>{"sudo systemctl stop sglang.service",
                                                      "sudo systemctl disable sglang.service"}));
}

TEST(Checks, OneSampleIsNoIdlenessAndGraphicsAreNeverIdleServers) {
  Report r = healthy_node();
  for (GpuState& g : r.snapshot.gpus) {
    g.memory_used_bytes = 75800000000ull;
    g.processes = std::vector<GpuProcess>{sglang_worker(3187 + g.index, g.index)};
    g.utilization_gpu_pct = SampleStats{0, 0, 0, 1};  // --sample 0
  }
  r.snapshot.servers = std::vector<Server>{sglang_server(r.snapshot)};
  EXPECT_FALSE(has(ids(r), "memory.held_idle"));
  Report d = healthy_node();
  GpuProcess xorg = sglang_worker(900, 0);
  xorg.name = "Xorg";
  xorg.cmdline = "/usr/lib/xorg/Xorg :0";
  xorg.type = "graphics";
  d.snapshot.gpus[0].memory_used_bytes = 20000000000ull;
  d.snapshot.gpus[0].processes = std::vector<GpuProcess>{xorg};
  Server desk;
  desk.id = "pid-900";
  desk.kind = "Xorg";
  desk.members.push_back({900, "graphics", xorg.name, xorg.cmdline, {{0, xorg.used_memory_bytes}}});
  desk.gpus.push_back({0, xorg.used_memory_bytes});
  desk.graphics_only = true;
  d.snapshot.servers = std::vector<Server>{desk};
  EXPECT_FALSE(has(ids(d), "memory.held_idle"));
}

TEST(Checks, BusyHolderIsNotFlaggedAndMemoryWithoutProcessIs) {
  Report r = healthy_node();
  r.snapshot.gpus[0].memory_used_bytes = 40000000000ull;
  r.snapshot.gpus[0].utilization_gpu_pct = SampleStats{50, 70, 90, 6};
  r.snapshot.gpus[0].processes = std::vector<GpuProcess>{sglang_worker(1, 0)};
  r.snapshot.gpus[1].memory_used_bytes = 40000000000ull;
  auto v = ids(r);
  EXPECT_FALSE(has(v, "memory.held_idle"));
  EXPECT_TRUE(has(v, "memory.held_no_process"));
}

TEST(Checks, EccThresholds) {
  Report r = healthy_node();
  r.snapshot.gpus[2].ecc.volatile_uncorrected = 3;
  r.snapshot.gpus[2].remapped_rows = {0, 2, true, false};
  r.snapshot.gpus[6].remapped_rows = {0, 9, false, true};
  r.snapshot.gpus[1].retired_pages = {59, 1, true};
  auto v = ids(r);
  EXPECT_TRUE(has(v, "ecc.volatile_uncorrectable"));
  EXPECT_TRUE(has(v, "ecc.remap_pending"));
  EXPECT_TRUE(has(v, "ecc.remap_failure"));
  EXPECT_TRUE(has(v, "ecc.retired_pages_limit"));
  EXPECT_TRUE(has(v, "ecc.retired_pages_pending"));
  EXPECT_EQ(r.verdict, Severity::kCritical);
}

TEST(Checks, PcieJudgedOnlyWhileBusy) {
  Report r = healthy_node();
  r.snapshot.gpus[4].pcie = {3, 5, 5, 8, 16, 0};
  r.snapshot.gpus[4].utilization_gpu_pct = SampleStats{95, 98, 100, 6};
  r.snapshot.gpus[7].pcie = {1, 5, 5, 16, 16, 0};  // idle: power saving
  auto v = ids(r);
  EXPECT_EQ(std::count(v.begin(), v.end(), "pcie.link_downgraded"), 1);
  EXPECT_TRUE(has(v, "pcie.link_idle_low"));
  EXPECT_EQ(r.verdict, Severity::kWarning);
}

TEST(Checks, ClockSlowdownsAndPersistence) {
  Report r = healthy_node();
  r.snapshot.gpus[0].clock_event_reasons = 0x8 | 0x40;
  r.snapshot.gpus[1].clock_event_reasons = 0x80;
  r.snapshot.gpus[2].clock_event_reasons = 0x4;  // SW power cap: normal
  r.snapshot.gpus[3].persistence_mode = false;
  auto v = ids(r);
  EXPECT_TRUE(has(v, "clocks.hw_slowdown"));
  EXPECT_TRUE(has(v, "clocks.thermal"));
  EXPECT_TRUE(has(v, "clocks.power_brake"));
  EXPECT_TRUE(has(v, "persistence.off"));
  EXPECT_EQ(std::count(v.begin(), v.end(), "clocks.hw_slowdown"), 1);
}

TEST(Checks, DiskGrades) {
  Report r = healthy_node();
  r.snapshot.disks[0].available_bytes = 50;  // 5%
  DiskUsage data;
  data.path = "/data";
  data.total_bytes = 1000;
  data.available_bytes = 20;  // 2%
  data.inodes_total = 100;
  data.inodes_available = 1;
  r.snapshot.disks.push_back(data);
  DiskUsage gone;
  gone.path = "/nope";
  gone.error = "cannot read /nope: No such file or directory";
  r.snapshot.disks.push_back(gone);
  judge(r, {});
  int crit = 0, warn = 0, unreadable = 0;
  for (const Finding& f : r.findings) {
    if (f.id == "disk.low_space" && f.severity == Severity::kCritical) ++crit;
    if (f.id == "disk.low_space" && f.severity == Severity::kWarning) ++warn;
    if (f.id == "disk.unreadable") ++unreadable;
  }
  EXPECT_EQ(crit, 1);
  EXPECT_EQ(warn, 1);
  EXPECT_EQ(unreadable, 1);
  EXPECT_TRUE(has(ids(r), "disk.low_inodes"));
}

TEST(Checks, KernelLogEventsAreDecodedAndAttributed) {
  Report r = healthy_node();
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = 79;
  e.pci_bus_id = "0000:1c:00.0";  // GPU 3
  e.boot = LogBoot::kCurrent;
  e.detail = "GPU has fallen off the bus.";
  r.snapshot.kernel_log->events = {e, e};
  KernelLogEvent prev = e;
  prev.boot = LogBoot::kPrevious;
  prev.code = 48;
  r.snapshot.kernel_log->events.push_back(prev);
  KernelLogEvent unknown = e;
  unknown.code = 4242;
  r.snapshot.kernel_log->events.push_back(unknown);
  judge(r, {});
  const Finding* f79 = nullptr;
  const Finding* f48 = nullptr;
  const Finding* f4242 = nullptr;
  for (const Finding& f : r.findings) {
    if (f.id == "gpu.xid.79") f79 = &f;
    if (f.id == "gpu.xid.48") f48 = &f;
    if (f.id == "gpu.xid.4242") f4242 = &f;
  }
  ASSERT_TRUE(f79 && f48 && f4242);
  EXPECT_EQ(f79->severity, Severity::kCritical);
  EXPECT_EQ(f79->subject.gpu_index, 3u);
  EXPECT_NE(f79->title.find("x2"), std::string::npos) << f79->title;
  EXPECT_EQ(f48->severity, Severity::kWarning);  // previous boot: one level milder
  EXPECT_NE(f4242->title.find("not in the catalogue"), std::string::npos);
}

TEST(Checks, UnreadableKernelLogIsAFinding) {
  Report r = healthy_node();
  r.snapshot.kernel_log->sources = {
      {"/dev/kmsg", LogBoot::kCurrent, false, std::string("permission denied"), 0}};
  auto v = ids(r);
  ASSERT_TRUE(has(v, "kernel_log.unreadable"));
  EXPECT_EQ(r.verdict, Severity::kWarning);
}

TEST(Plan, IndexListsAreShort) {
  EXPECT_EQ(format_index_list({0, 1, 2, 3, 4, 5, 6, 7}), "0-7");
  EXPECT_EQ(format_index_list({5, 0, 2, 6}), "0, 2, 5-6");
  EXPECT_EQ(format_index_list({}), "");
}

TEST(Plan, AHealthyNodeHasNothingToDo) {
  Report r = healthy_node();
  judge(r, {});
  EXPECT_TRUE(r.plan.empty());  // "all present" is a finding, not a step; no generic step
  EXPECT_EQ(r.verdict, Severity::kOk);
}

}  // namespace checks_test
}  // namespace gt

namespace gt {
namespace checks_test {

TEST(Checks, FatalNvlinkAndRecoveryActionRaiseTheSeverity) {
  Report r = healthy_node();
  KernelLogEvent e;
  e.kind = EventKind::kSxid;
  e.code = 22013;
  e.pci_bus_id = "0000:02:00.0";
  e.boot = LogBoot::kCurrent;
  e.detail = "Non-fatal, Link 00 Minion Link DLREQ interrupt";
  KernelLogEvent fatal = e;
  fatal.code = 20034;
  fatal.detail = "Fatal, Link 32 LTSSM Fault Up";
  KernelLogEvent rec;
  rec.kind = EventKind::kXid;
  rec.code = 154;
  rec.boot = LogBoot::kCurrent;
  rec.pci_bus_id = "0000:19:00.0";
  rec.detail = "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)";
  r.snapshot.kernel_log->events = {e, fatal, rec};
  judge(r, {});
  for (const Finding& f : r.findings) {
    if (f.id == "gpu.sxid.20034" || f.id == "gpu.xid.154") {
      EXPECT_EQ(f.severity, Severity::kCritical) << f.id;
    }
    if (f.id == "gpu.sxid.22013") {
      EXPECT_NE(f.severity, Severity::kCritical);
    }
  }
  EXPECT_EQ(r.verdict, Severity::kCritical);
}

}  // namespace checks_test
}  // namespace gt

namespace gt {
namespace checks_test {

TEST(Captures, ATrimmedCaptureClaimsNothingAboutTheGpusItLeftOut) {
  Report r = healthy_node();
  r.snapshot.source = Origin::kCapture;
  r.snapshot.pci_devices.clear();  // a capture's bus was not read
  r.snapshot.gpu_count = 16;       // <attached_gpus>
  r.snapshot.gpus.resize(1);
  auto v = ids(r);
  EXPECT_TRUE(has(v, "capture.incomplete"));
  EXPECT_FALSE(has(v, "gpu.all_present"));
  EXPECT_FALSE(has(v, "gpu.count_mismatch"));
}

TEST(Captures, ExpectedCountIsComparedWithTheCaptureNotThisBus) {
  Report r = healthy_node();
  r.snapshot.source = Origin::kCapture;
  r.snapshot.pci_devices.clear();
  CheckOptions o;
  o.expect_gpus = 8;
  judge(r, o);
  for (const Finding& f : r.findings) EXPECT_NE(f.id, "gpu.count_mismatch") << f.title;
  o.expect_gpus = 9;
  Report more = healthy_node();
  more.snapshot.source = Origin::kCapture;
  more.snapshot.pci_devices.clear();
  judge(more, o);
  EXPECT_TRUE(std::any_of(more.findings.begin(), more.findings.end(),
                          [](const Finding& f) { return f.id == "gpu.count_mismatch"; }));
}

}  // namespace checks_test
}  // namespace gt
