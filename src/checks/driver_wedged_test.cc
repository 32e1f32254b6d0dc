// driver.wedged: tasks stuck in nvidia code, and the NVML timeouts folded
// into it (join_driver_wedged).
#include <gtest/gtest.h>

#include <algorithm>

#include "checks/checks.h"
#include "checks/plan.h"
#include "checks/registry.h"
#include "checks/test_node.h"

namespace gt {
namespace driver_wedged_test {

StuckTask stuck(uint32_t pid, std::optional<uint32_t> tid, const std::string& comm) {
  StuckTask t;
  t.pid = pid;
  t.tid = tid;
  t.comm = comm;
  t.wchan = "os_acquire_mutex";
  t.nvidia_frame = "os_acquire_mutex+0x1f/0x30 [nvidia]";
  return t;
}

std::vector<const Finding*> with_id(const Report& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(DriverWedged, QuietWithoutStuckTasks) {
  for (std::optional<std::vector<StuckTask>> tasks :
       {std::optional<std::vector<StuckTask>>{}, std::optional(std::vector<StuckTask>{})}) {
    Report r = healthy_node();
    r.snapshot.stuck_nvidia_tasks = tasks;
    judge(r, {});
    EXPECT_TRUE(with_id(r, "driver.wedged").empty());
    EXPECT_EQ(r.verdict, Severity::kOk);
  }
}

TEST(DriverWedged, NamesThePidsCommsAndFrames) {
  Report r = healthy_node();
  r.snapshot.stuck_nvidia_tasks = std::vector<StuckTask>{stuck(4242, 4250, "python3")};
  StuckTask smi = stuck(5151, std::nullopt, "nvidia-smi");
  smi.nvidia_frame.reset();  // stack unreadable: the wchan is the evidence
  r.snapshot.stuck_nvidia_tasks->push_back(smi);
  judge(r, {});
  auto w = with_id(r, "driver.wedged");
  ASSERT_EQ(w.size(), 1u);
  const Finding& f = *w.front();
  // Stuck, but nothing else hangs: look again (an NVML timeout makes it
  // critical, see the join tests).
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(r.verdict, Severity::kWarning);
  EXPECT_NE(f.title.find("python3 (PID 4242, thread 4250) in os_acquire_mutex+0x1f/0x30 [nvidia]"),
            std::string::npos)
      << f.title;
  EXPECT_NE(f.title.find("nvidia-smi (PID 5151) in os_acquire_mutex (wchan)"), std::string::npos)
      << f.title;
  EXPECT_NE(f.evidence.find("stack unreadable"), std::string::npos) << f.evidence;
  EXPECT_FALSE(f.subject.pid);  // two processes: no single subject
  ASSERT_EQ(f.commands.size(), 2u);
  EXPECT_NE(f.commands[0].find("nvidia-bug-report.sh --safe-mode"), std::string::npos);
  EXPECT_TRUE(f.commands[1].starts_with("sudo reboot"));
  EXPECT_TRUE(f.joined_ids.empty());
  // One step: drain, bug report, reboot.
  ASSERT_EQ(r.plan.size(), 1u);
  EXPECT_EQ(r.plan[0].finding_ids, std::vector<std::string>{"driver.wedged"});
  EXPECT_NE(r.plan[0].text.find("Drain the node"), std::string::npos) << r.plan[0].text;
}

TEST(DriverWedged, JoinsTheUnresponsiveGpuAndNvmlTimeout) {
  Report r = healthy_node();
  GpuState& g = r.snapshot.gpus[5];
  g.status = GpuStatus::kUnresponsive;
  g.stuck_in_call = "nvmlDeviceGetPowerUsage";
  g.status_detail = "no answer within 2 s";
  r.snapshot.stuck_nvidia_tasks = std::vector<StuckTask>{stuck(4242, std::nullopt, "python3")};
  judge(r, {});
  EXPECT_TRUE(with_id(r, "gpu.unresponsive").empty()) << "folded into driver.wedged";
  auto w = with_id(r, "driver.wedged");
  ASSERT_EQ(w.size(), 1u);
  const Finding& f = *w.front();
  EXPECT_EQ(f.joined_ids, std::vector<std::string>{"gpu.unresponsive"});
  EXPECT_EQ(f.subject.pid, 4242u);
  EXPECT_TRUE(f.title.starts_with("The NVIDIA driver is wedged")) << f.title;
  EXPECT_NE(f.title.find("GPU 5 (0000:1e:00.0) did not answer: stuck in nvmlDeviceGetPowerUsage"),
            std::string::npos)
      << f.title;
  EXPECT_NE(f.evidence.find("gpu.unresponsive: no answer within 2 s"), std::string::npos);
  // Its dmesg command joins, before the single reboot, which stays last.
  EXPECT_EQ(std::count_if(f.commands.begin(), f.commands.end(),
                          [](const std::string& c) {
                            return c.find("reboot") == 0 || c.find("sudo reboot") == 0;
                          }),
            1);
  EXPECT_TRUE(f.commands.back().starts_with("sudo reboot"));
  EXPECT_TRUE(contains(f.commands, "sudo dmesg -T | grep -E 'NVRM|Xid' | tail -40"));
  EXPECT_EQ(r.plan.size(), 1u);
}

TEST(DriverWedged, JoinCarriesIdsAlreadyJoinedByBus) {
  std::vector<Finding> fs(4);
  fs[0].id = "gpu.unresponsive";
  fs[0].severity = Severity::kCritical;
  fs[0].title = "GPU 5 did not answer";
  fs[0].joined_ids = {"gpu.xid.79"};
  fs[0].commands = {"sudo dmesg", "sudo reboot"};
  fs[1].id = "nvml.unresponsive";
  fs[1].severity = Severity::kCritical;
  fs[1].title = "NVML did not answer";
  fs[1].commands = {"sudo dmesg", "sudo reboot"};
  fs[2].id = "persistence.off";
  fs[2].severity = Severity::kWarning;
  fs[3].id = "driver.wedged";
  fs[3].severity = Severity::kCritical;
  fs[3].title = "wedged";
  fs[3].commands = {"sudo nvidia-bug-report.sh --safe-mode", "sudo reboot   # after draining"};
  join_driver_wedged(fs);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].id, "persistence.off");
  EXPECT_EQ(fs[1].id, "driver.wedged");
  EXPECT_EQ(fs[1].joined_ids,
            (std::vector<std::string>{"gpu.unresponsive", "gpu.xid.79", "nvml.unresponsive"}));
  EXPECT_EQ(fs[1].title, "wedged; GPU 5 did not answer; NVML did not answer");
  EXPECT_EQ(fs[1].commands,
            (std::vector<std::string>{"sudo nvidia-bug-report.sh --safe-mode", "sudo dmesg",
                                      "sudo reboot   # after draining"}));
}

TEST(DriverWedged, TimeoutsStandAloneWithoutStuckTasks) {
  std::vector<Finding> fs(1);
  fs[0].id = "gpu.unresponsive";
  join_driver_wedged(fs);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "gpu.unresponsive");
}

TEST(DriverWedged, RunAsRootDropsSudoFromTheJoinedCommands) {
  Report r = healthy_node();
  r.snapshot.gpus[2].status = GpuStatus::kUnresponsive;
  r.snapshot.stuck_nvidia_tasks = std::vector<StuckTask>{stuck(7, std::nullopt, "python3")};
  CheckOptions o;
  o.running_as_root = true;
  judge(r, o);
  auto w = with_id(r, "driver.wedged");
  ASSERT_EQ(w.size(), 1u);
  for (const std::string& c : w.front()->commands) EXPECT_FALSE(c.starts_with("sudo ")) << c;
  EXPECT_TRUE(w.front()->commands.back().starts_with("reboot"));
}

}  // namespace driver_wedged_test
}  // namespace gt
