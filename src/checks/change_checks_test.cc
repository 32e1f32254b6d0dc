#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_fingerprint.h"
#include "history/record.h"
#include "model/snapshot.h"

namespace gt {
namespace change_checks_test {

const std::string kOld = kStoryOldContainer;
const std::string kNew = kStoryNewContainer;

Fingerprint before() { return story_fingerprint(); }

NodeSnapshot with_record(const Fingerprint& was, const Fingerprint& now) {
  NodeSnapshot s;
  GpuHistory& h = s.history.emplace();
  h.boot_id = "boot-2";
  h.boots = {{"boot-1", 1767200000, 1767225000, was, was}};
  s.fingerprint = now;
  return s;
}

std::vector<Finding> judge_changes(const NodeSnapshot& s) {
  std::vector<Finding> out;
  check_changes(s, out);
  return out;
}

const Finding* by_id(const std::vector<Finding>& f, const std::string& id) {
  for (const Finding& x : f)
    if (x.id == id) return &x;
  return nullptr;
}

TEST(ChangeChecks, NothingChangedNothingSaid) {
  EXPECT_TRUE(judge_changes(with_record(before(), before())).empty());
}

TEST(ChangeChecks, RecreatedContainerWithThePatchGoneNamesTheFiles) {
  Fingerprint now = before();
  now.container = ContainerPrint{kNew, 1767226000, "/proc/self/cgroup"};
  now.python[0].packages[0].modified.clear();
  std::vector<Finding> f = judge_changes(with_record(before(), now));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.container_recreated");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].title.find("sglang 0.4.6 had 2 locally modified files before "
                            "(sglang/srt/model_executor/model_runner.py, "
                            "sglang/srt/layers/logits_processor.py) and now matches its wheel"),
            std::string::npos)
      << f[0].title;
  EXPECT_NE(f[0].title.find("re-apply the patch before resuming"), std::string::npos);
}

TEST(ChangeChecks, APackageNotFullyCheckedIsNotCalledPristine) {
  Fingerprint now = before();
  now.container = ContainerPrint{kNew, std::nullopt, std::nullopt};
  now.python[0].packages[0].modified.clear();
  now.python[0].packages[0].fully_checked = false;  // a bound met
  std::vector<Finding> f = judge_changes(with_record(before(), now));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);  // recreated, the patch not known gone
}

TEST(ChangeChecks, AServerNotRunningNowLeavesItsPatchUnknownNotGone) {
  Fingerprint now = before();
  now.python.clear();  // no GPU process runs that interpreter this time
  EXPECT_TRUE(judge_changes(with_record(before(), now)).empty());
  // Listed with no package at all: not read (its notes say why), not gone.
  now.python = {{"/venv/site-packages", {"SGLang (pid 4001)"}, {}, {"not read: too many links"}}};
  EXPECT_TRUE(judge_changes(with_record(before(), now)).empty());
  now.python = {
      {"/venv/site-packages",
       {"SGLang (pid 4001)"},
       {{"torch", "2.7.0", "/venv/site-packages", {}, true, {}}}}};  // read, sglang absent
  std::vector<Finding> f = judge_changes(with_record(before(), now));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.patch_gone");
  EXPECT_NE(f[0].title.find("is no longer installed"), std::string::npos) << f[0].title;
}

TEST(ChangeChecks, DataOnAnotherDeviceAndABoardReplacedEachOnce) {
  Fingerprint now = before();
  now.mounts[0] = {"/data", "/dev/nvme0n1p1", "nvme0n1p1", "ext4", "/etc/fstab:3: UUID=9f1c /data"};
  now.gpus[1].uuid = "GPU-9";
  now.gpus[1].serial = "2001";
  std::vector<Finding> f = judge_changes(with_record(before(), now));
  ASSERT_EQ(f.size(), 2u);
  const Finding* d = by_id(f, "change.data_device");
  ASSERT_TRUE(d);
  EXPECT_NE(d->title.find("/data was vdb1 and is now nvme0n1p1"), std::string::npos);
  EXPECT_NE(d->evidence.find("UUID=7f3c"), std::string::npos);
  EXPECT_NE(d->evidence.find("UUID=9f1c"), std::string::npos);
  const Finding* g = by_id(f, "change.gpu_replaced");
  ASSERT_TRUE(g);
  EXPECT_NE(g->title.find("0000:2a:00.0 was replaced (serial 1001 -> 2001)"), std::string::npos);
}

TEST(ChangeChecks, AReplacedBoardsEvidenceNamesThePartNumbersKnown) {
  Fingerprint was = before();
  was.gpus[1].board_part_number = "692-2G520-0200-000";
  Fingerprint now = was;
  now.gpus[1].uuid = "GPU-9";
  now.gpus[1].serial = "2001";
  now.gpus[1].board_part_number = "692-2G520-0202-000";
  std::vector<Finding> f = judge_changes(with_record(was, now));
  const Finding* g = by_id(f, "change.gpu_replaced");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->evidence,
            "at the last run of boot boot-1 (2025-12-31 23:50 UTC): GPU-1 serial 1001 part "
            "number 692-2G520-0200-000; now GPU-9 serial 2001 part number 692-2G520-0202-000");
  now.gpus[1].board_part_number.reset();  // the new board does not say: not named
  f = judge_changes(with_record(was, now));
  g = by_id(f, "change.gpu_replaced");
  ASSERT_TRUE(g);
  EXPECT_NE(g->evidence.find("serial 1001 part number 692-2G520-0200-000; now GPU-9 serial 2001"),
            std::string::npos)
      << g->evidence;
  EXPECT_EQ(g->evidence.find("part number", g->evidence.find("now")), std::string::npos);
}

TEST(ChangeChecks, APartNumberAloneChangingIsNotAReplacement) {
  // Same UUID and serial at the same bus id: the serial decides.
  Fingerprint was = before();
  was.gpus[0].board_part_number = "692-2G520-0200-000";
  Fingerprint now = was;
  now.gpus[0].board_part_number = "692-2G520-0202-000";
  EXPECT_TRUE(judge_changes(with_record(was, now)).empty());
  now.gpus[0].uuid = "GPU-7";  // another UUID, the same serial: still no replacement
  const std::vector<Finding> f = judge_changes(with_record(was, now));
  EXPECT_FALSE(by_id(f, "change.gpu_replaced"));
}

const std::string kImageA = "9b1c0e2f3a4d" + std::string(52, '0');
const std::string kImageB = "4e5f60718293" + std::string(52, '1');

TEST(ChangeChecks, ARecreatedContainerSaysItsImageWhenBothAreKnown) {
  Fingerprint was = before();
  was.python[0].packages[0].modified.clear();  // no patch: the info variant
  was.container->image = "docker.io/lmsysorg/sglang:latest";
  was.container->image_id = kImageA;
  Fingerprint now = was;
  now.container = ContainerPrint{kNew, std::nullopt, "/proc/self/cgroup",
                                 "docker.io/lmsysorg/sglang:latest", kImageA};
  std::vector<Finding> f = judge_changes(with_record(was, now));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.container_recreated");
  EXPECT_NE(f[0].evidence.find(
                ", from the same image docker.io/lmsysorg/sglang:latest (id 9b1c0e2f3a4d)"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_EQ(f[0].title.find("another image"), std::string::npos) << f[0].title;

  now.container->image = "docker.io/lmsysorg/sglang:v0.5.0";
  now.container->image_id = kImageB;
  f = judge_changes(with_record(was, now));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find(", image docker.io/lmsysorg/sglang:latest (id 9b1c0e2f3a4d) -> "
                               "docker.io/lmsysorg/sglang:v0.5.0 (id 4e5f60718293)"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_EQ(f[0].title.rfind("The container was recreated from another image since ", 0), 0u)
      << f[0].title;

  now.container->image.reset();  // only the id known: the id alone
  f = judge_changes(with_record(was, now));
  EXPECT_NE(f[0].evidence.find("(id 9b1c0e2f3a4d) -> id 4e5f60718293"), std::string::npos)
      << f[0].evidence;
}

TEST(ChangeChecks, ARecreatedContainerOfAnUnknownImageSaysNoImage) {
  Fingerprint was = before();
  was.python[0].packages[0].modified.clear();
  was.container->image_id = kImageA;  // the old one's known, the new one's not (docker)
  Fingerprint now = was;
  now.container = ContainerPrint{kNew, std::nullopt, "/proc/self/cgroup"};
  std::vector<Finding> f = judge_changes(with_record(was, now));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence.find("image"), std::string::npos) << f[0].evidence;
  EXPECT_EQ(f[0].title.find("another image"), std::string::npos) << f[0].title;
}

TEST(ChangeChecks, MovedGpuVbiosDriverAndPackageVersionsAreNotes) {
  Fingerprint now = before();
  std::swap(now.gpus[0].pci_bus_id, now.gpus[1].pci_bus_id);
  now.gpus[0].vbios_version = "96.00.A0.00.01";
  now.driver.kernel_module_version = "595.10.01";
  now.python[0].packages[1].version = "2.8.0";
  std::vector<Finding> f = judge_changes(with_record(before(), now));
  for (const char* id :
       {"change.gpu_moved", "change.vbios", "change.driver", "change.package_version"}) {
    const Finding* x = by_id(f, id);
    ASSERT_TRUE(x) << id;
    EXPECT_EQ(x->severity, Severity::kInfo) << id;
  }
  EXPECT_FALSE(by_id(f, "change.gpu_replaced"));  // same UUIDs: moved, not replaced
  EXPECT_NE(by_id(f, "change.package_version")->title.find("torch 2.7.0 -> 2.8.0"),
            std::string::npos);
}

TEST(ChangeChecks, AUnitThatRanNoServerBeforeIsSaidWithItsDisable) {
  Fingerprint was = before();
  was.server_units.emplace();  // read, and none
  Fingerprint now = before();
  now.server_units = {{"sglang.service", "SGLang", "Restart=always", true, false},
                      {"lab.service", "vLLM", std::nullopt, false, true}};
  std::vector<Finding> f = judge_changes(with_record(was, now));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].id, "change.server_unit");
  EXPECT_NE(f[0].title.find("sglang.service started a GPU server (SGLang) at boot and ran none"),
            std::string::npos)
      << f[0].title;
  EXPECT_EQ(f[0].evidence, "sglang.service, started at boot, Restart=always");
  EXPECT_EQ(f[0].commands, std::vector<std::string>{"sudo systemctl disable --now sglang.service"});
  EXPECT_NE(f[1].commands.at(0).find("systemctl --user disable --now lab.service"),
            std::string::npos);
  // Not started at boot: perhaps by hand, so "if the unit is enabled".
  EXPECT_NE(f[1].title.find("lab.service runs a GPU server (vLLM) now and ran none"),
            std::string::npos)
      << f[1].title;
  EXPECT_NE(f[1].title.find("if the unit is enabled"), std::string::npos);
  // The same unit before: nothing; units not recorded then (an older record): nothing.
  EXPECT_TRUE(judge_changes(with_record(now, now)).empty());
  EXPECT_TRUE(judge_changes(with_record(before(), now)).empty());
}

TEST(ChangeChecks, APatchMadeInThisBootAndLostWithItsContainerIsAWarning) {
  // Boot 1 pristine in container A; boot 2: container B, patched by hand;
  // then, still in boot 2, container C from the pristine image.
  Fingerprint boot1 = before();
  boot1.python[0].packages[0].modified.clear();
  Fingerprint patched = before();
  patched.taken_unix_s = 1767226000;
  patched.container = ContainerPrint{kNew, 1767225900, "/proc/self/cgroup"};
  Fingerprint now = boot1;
  now.taken_unix_s = 1767227000;
  now.container = ContainerPrint{std::string(64, 'c'), 1767226900, "/proc/self/cgroup"};
  NodeSnapshot s = with_record(boot1, now);
  s.history->boots.push_back({"boot-2", 1767225950, 1767226000, boot1, patched, {}});
  s.history->boots.back().first_fingerprint->container = patched.container;
  std::vector<Finding> f = judge_changes(s);
  const Finding* gone = by_id(f, "change.container_recreated");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->severity, Severity::kWarning);
  EXPECT_NE(gone->title.find("sglang 0.4.6 had 2 locally modified files before"), std::string::npos)
      << gone->title;
  EXPECT_NE(gone->evidence.find("container bbbbbbbbbbbb at this boot's latest run"),
            std::string::npos)
      << gone->evidence;
  EXPECT_EQ(std::count_if(f.begin(), f.end(),
                          [](const Finding& x) { return x.id == "change.container_recreated"; }),
            1);
}

TEST(ChangeChecks, NotesAreSaidOnceInABootWarningsWhileTheyHold) {
  Fingerprint now = before();
  now.driver.kernel_module_version = "595.10.01";  // on purpose: a note
  now.mounts[0].source = "/dev/nvme0n1p1";         // the data elsewhere: a warning
  now.mounts[0].device = "nvme0n1p1";
  NodeSnapshot s = with_record(before(), now);
  std::vector<Finding> first = judge_changes(s);
  const Finding* driver = by_id(first, "change.driver");
  ASSERT_TRUE(driver);
  ASSERT_TRUE(driver->said_once_key);
  EXPECT_FALSE(by_id(first, "change.data_device")->said_once_key);

  // An operator's triage showed it (record_run marks it said in this boot).
  s.history->boots.push_back({"boot-2", 1767226000, 1767226000, now, now, {}});
  mark_said(*s.history, {*driver->said_once_key});
  std::vector<Finding> later = judge_changes(s);
  EXPECT_FALSE(by_id(later, "change.driver"));
  EXPECT_TRUE(by_id(later, "change.data_device"));

  // Another change of the same kind is another note.
  s.fingerprint->driver.kernel_module_version = "600.01";
  EXPECT_TRUE(by_id(judge_changes(s), "change.driver"));
  // And the next boot has said nothing yet.
  s.fingerprint->driver.kernel_module_version = "595.10.01";
  s.history->boot_id = "boot-3";
  s.history->boots.push_back({"boot-3", 1767300000, 1767300000, std::nullopt, std::nullopt, {}});
  s.history->boots.erase(s.history->boots.begin() + 1);  // the record as boot 3 reads it
  EXPECT_TRUE(by_id(judge_changes(s), "change.driver"));
}

TEST(ChangeChecks, ThePreviousBootWinsOverThisBootsFirstRun) {
  Fingerprint now = before();
  Fingerprint this_boot = before();
  this_boot.kernel_release = "6.9.0";  // earlier in this boot
  NodeSnapshot s = with_record(before(), now);
  s.history->boots.push_back({"boot-2", 1767300000, 1767300000, this_boot, this_boot});
  EXPECT_TRUE(judge_changes(s).empty());
  // Without a previous boot: this boot's first run is the baseline.
  s.history->boots.erase(s.history->boots.begin());
  std::vector<Finding> f = judge_changes(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.driver");
}

TEST(ChangeChecks, WithoutARecordALocalPatchIsANote) {
  NodeSnapshot s;
  s.history.emplace().boot_id = "boot-1";
  s.fingerprint = before();
  std::vector<Finding> f = judge_changes(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.local_patch");
  EXPECT_EQ(f[0].severity, Severity::kInfo);
}

NodeSnapshot without_record_with_data(int64_t last_write_unix_s) {
  NodeSnapshot s;
  s.history.emplace().boot_id = "boot-1";
  s.fingerprint = before();
  s.fingerprint->python.clear();
  DataCheck& d = s.data.emplace();
  d.dir = "/data/run-0412";
  d.last_write_unix_s = last_write_unix_s;
  return s;
}

TEST(ChangeChecks, WithoutARecordAContainerYoungerThanTheJobsOutputIsAWarning) {
  // before()'s container was created at 1767000000.
  std::vector<Finding> f = judge_changes(without_record_with_data(1767000000 - 3600));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.container_after_job");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].subject.path, "/data/run-0412");
  EXPECT_NE(f[0].evidence.find(kOld.substr(0, 12)), std::string::npos) << f[0].evidence;
}

TEST(ChangeChecks, AContainerOlderThanTheOutputOrUnknownSaysNothing) {
  EXPECT_TRUE(judge_changes(without_record_with_data(1767000000 + 60)).empty());
  NodeSnapshot unknown = without_record_with_data(1767000000 - 3600);
  unknown.fingerprint->container->created_unix_s.reset();
  EXPECT_TRUE(judge_changes(unknown).empty());
  NodeSnapshot host = without_record_with_data(1767000000 - 3600);
  host.fingerprint->container->id = kHostNotContainer;
  EXPECT_TRUE(judge_changes(host).empty());
  NodeSnapshot no_write = without_record_with_data(0);
  no_write.data->last_write_unix_s.reset();
  EXPECT_TRUE(judge_changes(no_write).empty());
}

// Issue 52: seen from the host, the GPU server's container that mounts the
// job's directory and was made after the job's last write (a unit's
// `docker run --rm` at boot) is a new container: the patch made in the old
// one is gone. Older, or mounting something else: nothing said.
NodeSnapshot host_with_server_container(int64_t created_unix_s, const std::string& source) {
  NodeSnapshot s = without_record_with_data(1767224760);
  s.fingerprint->container->id = kHostNotContainer;
  Server sv;
  sv.kind = "SGLang";
  ContainerInfo& c = sv.container.emplace();
  c.id = std::string(64, 'b');
  c.name = "specforge";
  c.created_unix_s = created_unix_s;
  c.mounts = {{source, source}};
  c.created_by_unit = "specforge.service";
  c.auto_remove = true;
  s.servers.emplace().push_back(sv);
  return s;
}

TEST(ChangeChecks, FromTheHostAServersNewContainerOverTheJobsDataIsAWarning) {
  std::vector<Finding> f = judge_changes(host_with_server_container(1767225629, "/data"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "change.container_after_job");
  EXPECT_EQ(f[0].subject.path, "/data");
  EXPECT_NE(f[0].title.find("Container specforge (bbbbbbbbbbbb), which mounts /data"),
            std::string::npos)
      << f[0].title;
  EXPECT_NE(f[0].evidence.find("created 2026-01-01 00:00:29 UTC; /data last written "
                               "2025-12-31 23:46:00 UTC; specforge.service creates it each time "
                               "it starts (docker run --rm)"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].action.find("Python environment"), std::string::npos) << f[0].action;
  // No record read (no state directory): still a new container, and the
  // action says the packages were not compared.
  NodeSnapshot stateless = host_with_server_container(1767225629, "/data");
  stateless.history.reset();
  stateless.fingerprint.reset();
  f = judge_changes(stateless);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].action.find("--state-dir"), std::string::npos) << f[0].action;
  EXPECT_TRUE(judge_changes(host_with_server_container(1767224000, "/data")).empty());
  EXPECT_TRUE(judge_changes(host_with_server_container(1767225629, "/scratch")).empty());
  EXPECT_TRUE(judge_changes(host_with_server_container(1767225629, "/data/run")).empty());
}

}  // namespace change_checks_test
}  // namespace gt
