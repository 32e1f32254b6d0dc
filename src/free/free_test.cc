// The safety rules of `gpu-triage free`, on fixture /proc trees and on live
// child processes (the PID-reuse check).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "free/free_act.h"
#include "free/free_plan.h"
#include "sources/procfs/process_tree.h"
#include "util/test_util.h"

namespace gt {
namespace free_test {

/// These fixtures are not sampled over a window: their servers are not
/// known to be idle, so they are planned only with --include-busy.
FreeOptions busy_ok() {
  FreeOptions o;
  o.include_busy = true;
  return o;
}

TEST(FreeTree, RootIsTheLauncherInTheSameCgroupBelowTheShell) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 500, 1, "bash", "-bash", 0, "/user.slice/session-1.scope");
  fake_proc(t, 3141, 500, "python3", "python3 -m sglang.launch_server --tp 8", 997,
            "/user.slice/session-1.scope");
  fake_proc(t, 3187, 3141, "sglang::schedul", "sglang::scheduler_TP0", 997,
            "/user.slice/session-1.scope");
  fake_proc(t, 4000, 1, "python3", "python3 -m vllm serve", 0, "/system.slice/vllm.service");
  fake_proc(t, 4001, 4000, "python3", "VLLM::Worker_TP0", 0, "/system.slice/other.service");
  auto top = [&](uint32_t pid, std::set<uint32_t> protect) {
    return climb_from(t.root(), pid, protect).chain.back().pid;
  };
  EXPECT_EQ(top(3187, {}), 3141u);  // stops below the login shell
  EXPECT_EQ(climb_from(t.root(), 3187, {}).end, ClimbEnd::kSession);
  EXPECT_EQ(top(3187, {3141}), 3187u);  // never climbs into ourselves
  EXPECT_EQ(top(4001, {}), 4001u);      // another cgroup is another owner
  EXPECT_EQ(climb_from(t.root(), 4001, {}).end, ClimbEnd::kCgroup);
  EXPECT_EQ(top(4000, {}), 4000u);  // never climbs to PID 1
}

TEST(FreeTree, RefusalReasons) {
  ProcInfo p;
  p.pid = 1;
  EXPECT_TRUE(refusal_reason(p, {}, 100, 0));
  p.pid = 100;
  EXPECT_NE(refusal_reason(p, {100}, 100, 0)->find("itself"), std::string::npos);
  p.pid = 50;
  EXPECT_NE(refusal_reason(p, {100, 50}, 100, 0)->find("ancestor"), std::string::npos);
  p.pid = 200;
  p.kernel_thread = true;
  EXPECT_NE(refusal_reason(p, {}, 100, 0)->find("kernel thread"), std::string::npos);
  p.kernel_thread = false;
  p.uid = 0;
  EXPECT_NE(refusal_reason(p, {}, 100, 1000)->find("only root"), std::string::npos);
  EXPECT_FALSE(refusal_reason(p, {}, 100, 0));  // root may
  p.uid = 1000;
  EXPECT_FALSE(refusal_reason(p, {}, 100, 1000));  // own process
}

TEST(FreeTree, KernelThreadsAreRecognised) {
  TempTree t;
  fake_proc(t, 77, 2, "kworker/0:1", "", 0, "/", 0x04208040);
  std::optional<ProcInfo> p = read_proc(t.root(), 77);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->kernel_thread);
}

GpuState gpu_with(uint32_t index, std::vector<GpuProcess> procs, double util_max = 0) {
  GpuState g;
  g.index = index;
  g.memory_total_bytes = 80ull << 30;
  g.memory_used_bytes = 70ull << 30;
  g.utilization_gpu_pct = SampleStats{0, util_max / 2, util_max, 3};
  g.processes = procs;
  return g;
}

GpuProcess holder(uint32_t pid, bool visible = true) {
  GpuProcess p;
  p.pid = pid;
  p.visible = visible;
  p.used_memory_bytes = 70ull << 30;
  p.cmdline = "sglang::scheduler_TP0";
  p.owner = ProcessOwner{OwnerKind::kSystemdUnit, "sglang.service", std::nullopt,
                         "/system.slice/sglang.service"};
  return p;
}

TEST(FreePlan, GroupsWorkersUnderTheirLauncherAndRefusesWhatItMust) {
  TempTree t;
  fake_proc(t, 3141, 1, "python3", "python3 -m sglang.launch_server --tp 2", 997,
            "/system.slice/sglang.service");
  fake_proc(t, 3187, 3141, "sglang::schedul", "sglang::scheduler_TP0", 997,
            "/system.slice/sglang.service");
  fake_proc(t, 3188, 3141, "sglang::schedul", "sglang::scheduler_TP1", 997,
            "/system.slice/sglang.service");
  t.write("/etc/systemd/system/sglang.service", "[Service]\nExecStart=x\nRestart=always\n");
  NodeSnapshot s;
  GpuProcess unseen = holder(9999, false);
  unseen.owner.reset();  // /proc is where the owner comes from
  s.gpus = {gpu_with(0, {holder(3187)}), gpu_with(1, {holder(3188)}), gpu_with(2, {unseen}),
            gpu_with(3, {})};
  FreeOptions o = busy_ok();
  o.gpus = std::vector<uint32_t>{0, 1, 2, 3, 9};
  FreePlan plan = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0].root.pid, 3141u);
  EXPECT_EQ(plan.targets[0].holders.size(), 2u);
  EXPECT_EQ(plan.targets[0].gpus, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(plan.targets[0].restart_policy, "Restart=always");
  // The unit restarts what a signal stops: the owner is the way.
  EXPECT_TRUE(plan.targets[0].stop.via_owner);
  EXPECT_EQ(plan.targets[0].stop.all(),
            (std::vector<std::string>{"sudo systemctl stop sglang.service",
                                      "sudo systemctl disable sglang.service"}));
  ASSERT_EQ(plan.refusals.size(), 1u);  // the invisible PID
  EXPECT_EQ(plan.refusals[0].pid, 9999u);
  EXPECT_EQ(plan.errors, std::vector<std::string>{"no GPU 9 on this node"});
  // --signal: SIGTERM to the launcher; not root: the svc-llm launcher is refused.
  o.force_signal = true;
  FreePlan user = make_free_plan(s, t.root(), o, Self{42, 1000, {42}});
  EXPECT_TRUE(user.targets.empty());
  EXPECT_GE(user.refusals.size(), 2u);
}

TEST(FreePlan, NeverReachesOutsideTheSelection) {
  TempTree t;
  fake_proc(t, 3141, 1, "python3", "python3 -m sglang.launch_server --tp 4", 0,
            "/user.slice/session-1.scope");
  std::vector<GpuState> gpus;
  for (uint32_t i = 0; i < 4; ++i) {
    fake_proc(t, 3187 + i, 3141, "sglang::schedul", "sglang::scheduler_TP" + std::to_string(i), 0,
              "/user.slice/session-1.scope");
    gpus.push_back(gpu_with(i, {holder(3187 + i)}));
  }
  for (auto& g : gpus)
    for (auto& p : *g.processes) p.owner.reset();
  NodeSnapshot s;
  s.gpus = gpus;
  FreeOptions o = busy_ok();
  o.gpus = std::vector<uint32_t>{0, 1};
  FreePlan part = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  EXPECT_TRUE(part.targets.empty());
  ASSERT_EQ(part.refusals.size(), 1u);
  EXPECT_NE(part.refusals[0].reason.find("PIDs 3189, 3190 on GPUs 2-3"), std::string::npos)
      << part.refusals[0].reason;
  o.whole_server = true;
  FreePlan whole = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  ASSERT_EQ(whole.targets.size(), 1u);
  EXPECT_TRUE(whole.targets[0].widened);
  EXPECT_EQ(whole.gpus, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(whole.targets[0].signal.size(), 1u);
  EXPECT_EQ(whole.targets[0].signal[0].pid, 3141u);
  // --pid of the launcher would take its four workers: refused.
  FreeOptions byp = busy_ok();
  byp.pids = {3141};
  FreePlan launcher = make_free_plan(s, t.root(), byp, Self{42, 0, {42}});
  EXPECT_TRUE(launcher.targets.empty());
  ASSERT_EQ(launcher.refusals.size(), 1u);
  EXPECT_NE(launcher.refusals[0].reason.find("3187, 3188, 3189, 3190"), std::string::npos);
  // --pid of one worker signals exactly that worker.
  byp.pids = {3188};
  FreePlan one = make_free_plan(s, t.root(), byp, Self{42, 0, {42}});
  ASSERT_EQ(one.targets.size(), 1u);
  ASSERT_EQ(one.targets[0].signal.size(), 1u);
  EXPECT_EQ(one.targets[0].signal[0].pid, 3188u);
  EXPECT_EQ(one.targets[0].gpus, std::vector<uint32_t>{1});
  EXPECT_EQ(one.targets[0].stop.stop,
            std::vector<std::string>{"kill 3188   # SIGTERM to exactly the chosen PIDs"});
}

TEST(FreePlan, GpuListsAndFreeness) {
  EXPECT_FALSE(parse_gpu_list("all")->has_value());
  EXPECT_EQ(**parse_gpu_list("0,2,4-6"), (std::vector<uint32_t>{0, 2, 4, 5, 6}));
  for (const char* bad : {"", "x", "3-1", "1,,2", "-1", "0-99999"})
    EXPECT_FALSE(parse_gpu_list(bad).ok()) << bad;
  GpuState g = gpu_with(0, {});
  EXPECT_FALSE(gpu_is_free(g));  // 70 GiB held with no process
  g.memory_used_bytes = 100ull << 20;
  EXPECT_TRUE(gpu_is_free(g));
  g.processes.reset();  // unknown process list: not known to be free
  EXPECT_FALSE(gpu_is_free(g));
}

TEST(FreePlan, GpuListsAreBoundedBeforeAnyLoop) {
  // "4294967294-4294967295" used to loop forever (uint32_t i <= b wraps):
  // a hang here ends at ctest's timeout. No wall-clock bound: under ASan on
  // a loaded machine the 20000 ranges below took 1.1 s once.
  for (const char* bad : {"4294967294-4294967295", "0-4294967295", "1024", "1020-1024",
                          "4294967296", "99999999999999999999", "0-1,4294967295"}) {
    Result<std::optional<std::vector<uint32_t>>> r = parse_gpu_list(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("0-1023"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(**parse_gpu_list("1023"), std::vector<uint32_t>{1023});
  EXPECT_EQ(**parse_gpu_list("5,0-2,1"), (std::vector<uint32_t>{0, 1, 2, 5}));
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "0-1023,";
  many += "7";
  Result<std::optional<std::vector<uint32_t>>> all = parse_gpu_list(many);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)->size(), 1024u);  // a set, not 20 million entries
}

TEST(FreeAct, AReusedPidIsNeverSignalled) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(child, 0);
  std::optional<ProcInfo> info = read_proc(FsRoot("/"), static_cast<uint32_t>(child));
  ASSERT_TRUE(info);
  Result<int> wrong = open_verified_pidfd({static_cast<uint32_t>(child), info->start_ticks + 1});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("another process"), std::string::npos);
  Result<int> right = open_verified_pidfd({static_cast<uint32_t>(child), info->start_ticks});
  ASSERT_TRUE(right.ok()) << right.error().message;
  close(*right);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  Result<int> gone = open_verified_pidfd({static_cast<uint32_t>(child), info->start_ticks});
  EXPECT_FALSE(gone.ok());
}

TEST(FreeAct, MemoryWithNoHolderGetsTheResetRecipeNotRun) {
  FreePlan plan;
  plan.gpus = {0};
  NodeSnapshot s;
  s.gpus = {gpu_with(0, {})};
  s.gpus[0].status = GpuStatus::kOk;
  FreeResult r = describe_state(plan, s);
  EXPECT_TRUE(r.memory_remains);
  ASSERT_EQ(r.remaining.size(), 1u);
  EXPECT_NE(r.remaining[0].find("--gpu-reset -i 0"), std::string::npos);
  EXPECT_NE(r.remaining[0].find("nvidia-persistenced"), std::string::npos);
  EXPECT_NE(r.remaining[0].find("-pm 0"), std::string::npos);
}

}  // namespace free_test
}  // namespace gt

namespace gt {
namespace free_test {

std::vector<uint32_t> pids_of(const std::vector<ProcId>& ids) {
  std::vector<uint32_t> out;
  for (const ProcId& id : ids) out.push_back(id.pid);
  return out;
}

/// A launcher (3141, root's) with workers 3187 on GPU 0 and 3188 on GPU 1.
NodeSnapshot two_gpu_server(TempTree& t) {
  fake_proc(t, 3141, 1, "python3", "python3 -m sglang.launch_server --tp 2", 0,
            "/user.slice/session-1.scope");
  fake_proc(t, 3187, 3141, "sglang::schedul", "sglang::scheduler_TP0", 0,
            "/user.slice/session-1.scope");
  fake_proc(t, 3188, 3141, "sglang::schedul", "sglang::scheduler_TP1", 0,
            "/user.slice/session-1.scope");
  NodeSnapshot s;
  GpuProcess a = holder(3187), b = holder(3188);
  a.owner.reset();
  b.owner.reset();
  s.gpus = {gpu_with(0, {a}), gpu_with(1, {b})};
  return s;
}

TEST(FreeSafety, AnUnreadProcessListOutsideTheSelectionStopsNoLauncher) {
  TempTree t;
  NodeSnapshot s = two_gpu_server(t);
  s.gpus[1].processes.reset();  // GPU 1's list could not be read: 3188 unseen
  s.gpus[1].status = GpuStatus::kLost;
  FreeOptions o = busy_ok();
  o.gpus = std::vector<uint32_t>{0};
  FreePlan plan = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  EXPECT_TRUE(plan.targets.empty());
  ASSERT_EQ(plan.refusals.size(), 1u);
  EXPECT_NE(plan.refusals[0].reason.find("GPU 1"), std::string::npos) << plan.refusals[0].reason;
  // An incomplete list (one query failed) counts as unread too.
  NodeSnapshot part = two_gpu_server(t);
  part.gpus[1].processes_error = "the compute process query failed: the list is incomplete";
  EXPECT_TRUE(make_free_plan(part, t.root(), o, Self{42, 0, {42}}).targets.empty());
}

TEST(FreeSafety, TheOwnerPathObeysTheSafetyRulesToo) {
  TempTree t;
  fake_proc(t, 700, 1, "python3", "python3 -m ipykernel_launcher", 0,
            "/system.slice/jupyter.service");
  t.write("/etc/systemd/system/jupyter.service", "[Service]\nRestart=always\n");
  NodeSnapshot s;
  GpuProcess k = holder(700);
  k.owner = ProcessOwner{OwnerKind::kSystemdUnit, "jupyter.service", std::nullopt,
                         "/system.slice/jupyter.service"};
  s.gpus = {gpu_with(0, {k})};
  // The kernel is gpu-triage's own ancestor (`!gpu-triage free --yes` in a cell).
  FreePlan plan = make_free_plan(s, t.root(), busy_ok(), Self{42, 0, {42, 700}});
  EXPECT_TRUE(plan.targets.empty());
  ASSERT_EQ(plan.refusals.size(), 1u);
  EXPECT_NE(plan.refusals[0].reason.find("ancestor"), std::string::npos);
}

TEST(FreeSafety, AChosenHelperPidIsSignalledNotAlsoRefused) {
  TempTree t;
  NodeSnapshot s = two_gpu_server(t);
  FreeOptions o = busy_ok();
  o.pids = {3187};
  FreePlan plan = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_TRUE(plan.refusals.empty());
}

TEST(FreeTree, GenericSupervisorsAndContainerInitsAreNeverTheRoot) {
  TempTree t;
  for (const char* comm : {"dumb-init", "jupyter-lab", "sshd-session", "supervisord"}) {
    fake_proc(t, 900, 1, comm, comm, 0, "/x.scope");
    fake_proc(t, 901, 900, "python3", "python3 worker.py", 0, "/x.scope");
    EXPECT_EQ(climb_from(t.root(), 901, {}).chain.back().pid, 901u) << comm;
  }
}

TEST(FreePlan, OnlyServersIdleOverTheWindowAreStoppedByDefault) {
  TempTree t;
  NodeSnapshot s = two_gpu_server(t);
  for (GpuState& g : s.gpus) g.utilization_gpu_pct.reset();  // --sample 0
  FreePlan plan = make_free_plan(s, t.root(), FreeOptions{}, Self{42, 0, {42}});
  EXPECT_TRUE(plan.targets.empty());
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_NE(plan.skipped[0].find("not known to be idle"), std::string::npos);
  for (GpuState& g : s.gpus)
    g.utilization_gpu_pct = SampleStats{0, 10, 35, 3};  // busy over 3 samples
  plan = make_free_plan(s, t.root(), FreeOptions{}, Self{42, 0, {42}});
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_NE(plan.skipped[0].find("--include-busy"), std::string::npos);
  for (GpuState& g : s.gpus)
    g.utilization_gpu_pct = SampleStats{0, 0, 0, 3};  // idle over 3 samples
  plan = make_free_plan(s, t.root(), FreeOptions{}, Self{42, 0, {42}});
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0].idle, true);
}

TEST(FreePlan, WrappersAreSignalledFirstAndTheTreeKilledAfter) {
  TempTree t;
  const char* cg = "/user.slice/session-3.scope";
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 90, 1, "serve.sh", "/bin/bash ./serve.sh", 0, cg);
  fake_proc(t, 100, 90, "python3", "python3 -m sglang.launch_server --tp 2", 0, cg);
  fake_proc(t, 101, 100, "sglang::schedul", "sglang::scheduler_TP0", 0, cg);
  fake_proc(t, 102, 100, "sglang::schedul", "sglang::scheduler_TP1", 0, cg);
  fake_proc(t, 103, 100, "python3", "python3 -c detokenizer", 0, cg);  // holds no GPU
  NodeSnapshot s;
  s.source = Origin::kNvml;
  s.gpus = {gpu_with(0, {holder(101)}), gpu_with(1, {holder(102)})};
  for (GpuProcess* p : {&(*s.gpus[0].processes)[0], &(*s.gpus[1].processes)[0]}) p->owner.reset();
  FreePlan plan = make_free_plan(s, t.root(), busy_ok(), Self{42, 0, {42}});
  ASSERT_EQ(plan.targets.size(), 1u);
  const TreeTarget& tt = plan.targets[0];
  ASSERT_EQ(tt.signal.size(), 2u);
  EXPECT_EQ(tt.signal[0].pid, 90u);  // the loop first, or it starts the launcher again
  EXPECT_EQ(tt.signal[1].pid, 100u);
  std::vector<uint32_t> tree;
  for (const ProcId& id : tt.tree) tree.push_back(id.pid);
  std::sort(tree.begin(), tree.end());
  EXPECT_EQ(tree, (std::vector<uint32_t>{101, 102, 103}));
  ASSERT_GE(tt.stop.stop.size(), 2u);
  EXPECT_EQ(tt.stop.stop[0].rfind("kill 90 ", 0), 0u);
  EXPECT_EQ(tt.stop.stop[1].rfind("kill 100 ", 0), 0u);
}

TEST(FreePlan, APidOnASupervisorOrOneLauncherSignalsExactlyIt) {
  TempTree t;
  const char* cg = "/system.slice/sup.service";
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 10, 1, "python3", "python3 supervisor.py", 0, cg);
  fake_proc(t, 20, 10, "python3", "python3 -m sglang.launch_server --tp 2", 0, cg);
  fake_proc(t, 21, 20, "sglang::schedul", "sglang::scheduler_TP0", 0, cg);
  fake_proc(t, 22, 20, "sglang::schedul", "sglang::scheduler_TP1", 0, cg);
  fake_proc(t, 30, 10, "python3", "python3 -m sglang.launch_server --tp 2", 0, cg);
  fake_proc(t, 31, 30, "sglang::schedul", "sglang::scheduler_TP0", 0, cg);
  fake_proc(t, 32, 30, "sglang::schedul", "sglang::scheduler_TP1", 0, cg);
  NodeSnapshot s;
  s.gpus = {gpu_with(0, {holder(21)}), gpu_with(1, {holder(22)}), gpu_with(2, {holder(31)}),
            gpu_with(3, {holder(32)})};
  for (GpuState& g : s.gpus) (*g.processes)[0].owner.reset();
  FreeOptions o = busy_ok();
  o.pids = {20};
  o.whole_server = true;
  FreePlan a = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  ASSERT_EQ(a.targets.size(), 1u);
  ASSERT_EQ(a.targets[0].signal.size(), 1u);
  EXPECT_EQ(a.targets[0].signal[0].pid, 20u);  // never the supervisor, never server B
  EXPECT_EQ(a.targets[0].gpus, (std::vector<uint32_t>{0, 1}));
  ASSERT_TRUE(a.targets[0].supervisor);
  EXPECT_EQ(a.targets[0].supervisor->pid, 10u);
  // --gpus 0-1: server A alone, through its launcher.
  FreeOptions g = busy_ok();
  g.gpus = std::vector<uint32_t>{0, 1};
  FreePlan b = make_free_plan(s, t.root(), g, Self{42, 0, {42}});
  ASSERT_EQ(b.targets.size(), 1u);
  EXPECT_EQ(b.targets[0].signal.size(), 1u);
  EXPECT_EQ(b.targets[0].signal[0].pid, 20u);
  // SIGKILL after the grace period goes to the launcher and every worker.
  EXPECT_EQ(pids_of(a.targets[0].kill), (std::vector<uint32_t>{20, 21, 22}));
  // The supervisor only when named: then it first, then each server's
  // launcher, and SIGKILL to all of them; the commands say so too.
  FreeOptions sup = busy_ok();
  sup.pids = {10};
  sup.whole_server = true;
  FreePlan c = make_free_plan(s, t.root(), sup, Self{42, 0, {42}});
  ASSERT_EQ(c.targets.size(), 2u);
  for (const TreeTarget& x : c.targets) {
    ASSERT_EQ(x.signal.size(), 2u);
    EXPECT_EQ(x.signal[0].pid, 10u);
    EXPECT_EQ(x.signal[1].pid, x.root.pid);
    std::vector<uint32_t> kill = pids_of(x.kill);
    EXPECT_TRUE(std::count(kill.begin(), kill.end(), 10u) == 1 &&
                std::count(kill.begin(), kill.end(), x.root.pid + 1) == 1 &&
                std::count(kill.begin(), kill.end(), x.root.pid + 2) == 1);
    EXPECT_EQ(x.stop.stop.front().rfind("kill 10 ", 0), 0u);
    EXPECT_FALSE(x.report_commands);
    EXPECT_EQ(x.supervisor_role, "named with --pid: SIGTERM to it first, then to this server");
  }
  // Not named: shown, not stopped, with the command line that would.
  EXPECT_NE(a.targets[0].supervisor_role.find(
                "not stopped here; select it with `gpu-triage free --pid 10 --whole-server`"),
            std::string::npos)
      << a.targets[0].supervisor_role;
  // --pid on one rank: the other rank will hang; said.
  FreeOptions rank = busy_ok();
  rank.pids = {21};
  FreePlan d = make_free_plan(s, t.root(), rank, Self{42, 0, {42}});
  ASSERT_EQ(d.targets.size(), 1u);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("PIDs 22"), std::string::npos);
  // Its advice is a command line the parser takes and the plan carries out.
  EXPECT_NE(d.warnings[0].find("`gpu-triage free --pid 20 --whole-server`"), std::string::npos)
      << d.warnings[0];
  EXPECT_NE(d.warnings[0].find("`gpu-triage free --gpus 0-1`"), std::string::npos) << d.warnings[0];
  // --pid on one rank with --whole-server: the whole server, as --gpus 0-1.
  rank.whole_server = true;
  FreePlan e = make_free_plan(s, t.root(), rank, Self{42, 0, {42}});
  ASSERT_EQ(e.targets.size(), 1u);
  EXPECT_TRUE(e.warnings.empty());
  EXPECT_EQ(pids_of(e.targets[0].signal), std::vector<uint32_t>{20});
  EXPECT_EQ(pids_of(e.targets[0].kill), (std::vector<uint32_t>{20, 21, 22}));
  EXPECT_TRUE(e.targets[0].widened);
}

/// A restart loop (90) around a launcher that is its own GPU holder (100).
NodeSnapshot looped_holder(TempTree& t) {
  const char* cg = "/user.slice/session-3.scope";
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 90, 1, "bash", "bash -c while true; do python3 -m vllm.entrypoints.api_server; done",
            0, cg);
  fake_proc(t, 100, 90, "python3", "python3 -m vllm.entrypoints.api_server", 0, cg);
  NodeSnapshot s;
  s.source = Origin::kNvml;
  s.gpus = {gpu_with(0, {holder(100)})};
  (*s.gpus[0].processes)[0].owner.reset();
  return s;
}

TEST(FreePlan, APidUnderARestartLoopIsStoppedWithItsLoopOrRefused) {
  TempTree t;
  NodeSnapshot s = looped_holder(t);
  FreeOptions o = busy_ok();
  o.pids = {100};
  // Exactly PID 100: the loop would start it again. Refused, with the way.
  FreePlan exact = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  EXPECT_TRUE(exact.targets.empty());
  ASSERT_EQ(exact.refusals.size(), 1u);
  EXPECT_NE(exact.refusals[0].reason.find("wrapper PID 90"), std::string::npos);
  EXPECT_NE(exact.refusals[0].reason.find("`gpu-triage free --pid 100 --whole-server`"),
            std::string::npos)
      << exact.refusals[0].reason;
  // --whole-server: the loop first, then the launcher; SIGKILL to both.
  o.whole_server = true;
  FreePlan whole = make_free_plan(s, t.root(), o, Self{42, 0, {42}});
  ASSERT_EQ(whole.targets.size(), 1u);
  EXPECT_EQ(pids_of(whole.targets[0].signal), (std::vector<uint32_t>{90, 100}));
  EXPECT_EQ(pids_of(whole.targets[0].kill), (std::vector<uint32_t>{90, 100}));
  EXPECT_TRUE(whole.targets[0].whole);
  EXPECT_TRUE(whole.targets[0].report_commands);  // the report's commands: the loop first
  EXPECT_EQ(whole.targets[0].stop.stop.front().rfind("kill 90 ", 0), 0u);
  // Both named, without --whole-server: exactly them, the loop first.
  FreeOptions both = busy_ok();
  both.pids = {100, 90};
  FreePlan named = make_free_plan(s, t.root(), both, Self{42, 0, {42}});
  ASSERT_EQ(named.targets.size(), 1u);
  EXPECT_EQ(pids_of(named.targets[0].signal), (std::vector<uint32_t>{90, 100}));
  EXPECT_EQ(pids_of(named.targets[0].kill), (std::vector<uint32_t>{90, 100}));
  EXPECT_FALSE(named.targets[0].whole);
}

}  // namespace free_test
}  // namespace gt
