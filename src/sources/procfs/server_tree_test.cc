// A server is what its launcher starts: fixture /proc trees of supervisors,
// restart loops, orphaned workers and cycles.
#include "sources/procfs/server_tree.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "sources/procfs/process_info.h"
#include "sources/procfs/server_identity.h"
#include "sources/procfs/servers.h"
#include "util/test_util.h"

namespace gt {
namespace server_tree_test {

/// fake_proc with a process group (field 5 of stat).
void proc_in_group(const TempTree& t, uint32_t pid, uint32_t ppid, uint32_t pgrp,
                   const std::string& comm, const std::string& cmdline, const std::string& cg) {
  fake_proc(t, pid, ppid, comm, cmdline, 0, cg);
  t.write("/proc/" + std::to_string(pid) + "/stat",
          std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) + " " +
              std::to_string(pgrp) + " " + std::to_string(pgrp) +
              " 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(1000 + pid) +
              " 1000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
}

GpuProcess holder(uint32_t pid) {
  GpuProcess p;
  p.pid = pid;
  p.type = "compute";
  p.used_memory_bytes = 1ull << 30;
  p.visible = true;
  return p;
}

/// The GPUs' process lists, each process read from /proc as the collector does.
NodeSnapshot gpus(const FsRoot& root, const std::vector<std::vector<uint32_t>>& pids) {
  NodeSnapshot s;
  for (size_t i = 0; i < pids.size(); ++i) {
    GpuState g;
    g.index = static_cast<uint32_t>(i);
    g.processes = std::vector<GpuProcess>{};
    for (uint32_t p : pids[i]) {
      GpuProcess h = holder(p);
      fill_process_details(root, h);
      g.processes->push_back(h);
    }
    s.gpus.push_back(g);
  }
  return s;
}

const char* kCg = "/system.slice/llm.service";

TEST(ServerTree, TwoLaunchersUnderOneSupervisorAreTwoServers) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  // The supervisor's argument names sglang: it is still not SGLang's launcher.
  fake_proc(t, 100, 1, "python3", "python3 supervisor.py --config sglang.yaml", 0, kCg);
  fake_proc(t, 200, 100, "python3", "python3 -m sglang.launch_server --tp 2 --port 30000", 0, kCg);
  fake_proc(t, 201, 200, "sglang::schedul", "sglang::scheduler_TP0", 0, kCg);
  fake_proc(t, 202, 200, "sglang::schedul", "sglang::scheduler_TP1", 0, kCg);
  fake_proc(t, 300, 100, "python3", "python3 -m sglang.launch_server --tp 2 --port 30001", 0, kCg);
  fake_proc(t, 301, 300, "sglang::schedul", "sglang::scheduler_TP0", 0, kCg);
  fake_proc(t, 302, 300, "sglang::schedul", "sglang::scheduler_TP1", 0, kCg);
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v =
      group_servers(gpus(root, {{201}, {202}, {301}, {302}}), &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[0].root_pid, 200u);
  EXPECT_EQ((*v)[0].port, 30000u);
  EXPECT_EQ((*v)[1].root_pid, 300u);
  EXPECT_EQ((*v)[1].port, 30001u);
  for (const Server& s : *v) {
    EXPECT_EQ(s.kind, "SGLang");
    ASSERT_TRUE(s.supervisor);
    EXPECT_EQ(s.supervisor->pid, 100u);
    EXPECT_TRUE(s.wrappers.empty());
  }
}

TEST(ServerTree, ARestartLoopAboveTheLauncherIsItsWrapper) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 50, 1, "bash", "-bash", 0, kCg);  // the operator's login shell
  fake_proc(t, 90, 50, "bash", "bash -c while true; do python3 -m sglang.launch_server; done", 0,
            kCg);
  fake_proc(t, 100, 90, "serve.sh", "/bin/bash ./serve.sh", 0, kCg);
  fake_proc(t, 200, 100, "python3", "python3 -m sglang.launch_server --tp 1", 0, kCg);
  fake_proc(t, 201, 200, "sglang::schedul", "sglang::scheduler_TP0", 0, kCg);
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{201}}), &root);
  ASSERT_TRUE(v && v->size() == 1);
  const Server& s = v->front();
  EXPECT_EQ(s.root_pid, 200u);
  ASSERT_EQ(s.wrappers.size(), 2u);
  EXPECT_EQ(s.wrappers[0].pid, 90u);  // outermost first
  EXPECT_EQ(s.wrappers[1].pid, 100u);
  EXPECT_FALSE(s.supervisor);  // the login shell ended the climb: never part of it
}

// Issue 48 item 7: `while :; do timeout 3600 python -m ...; done` and a
// loop that runs it through su: the intermediary and the loop are the
// wrappers; sudo straight under a login shell still ends the climb.
TEST(ServerTree, AnIntermediaryBetweenALoopAndTheLauncherIsAWrapper) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 50, 1, "bash", "-bash", 0, kCg);
  fake_proc(t, 90, 50, "bash",
            "bash -c while :; do timeout 3600 python3 -m sglang.launch_server; done", 0, kCg);
  fake_proc(t, 100, 90, "timeout", "timeout 3600 python3 -m sglang.launch_server", 0, kCg);
  fake_proc(t, 200, 100, "python3", "python3 -m sglang.launch_server --tp 1", 0, kCg);
  fake_proc(t, 201, 200, "sglang::schedul", "sglang::scheduler_TP0", 0, kCg);
  fake_proc(t, 60, 50, "sudo", "sudo python3 -m sglang.launch_server --port 30001", 0, kCg);
  fake_proc(t, 300, 60, "python3", "python3 -m sglang.launch_server --port 30001", 0, kCg);
  fake_proc(t, 301, 300, "sglang::schedul", "sglang::scheduler_TP0", 0, kCg);
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{201}, {301}}), &root);
  ASSERT_TRUE(v && v->size() == 2);
  const Server& s = v->front();
  EXPECT_EQ(s.root_pid, 200u);
  ASSERT_EQ(s.wrappers.size(), 2u);
  EXPECT_EQ(s.wrappers[0].pid, 90u);  // the loop first
  EXPECT_EQ(s.wrappers[1].pid, 100u);
  EXPECT_EQ((*v)[1].root_pid, 300u);
  EXPECT_TRUE((*v)[1].wrappers.empty()) << "sudo typed in a shell is the operator's";
}

TEST(ServerTree, AWrapperWithOtherChildrenIsTheOwnerNotPartOfTheStop) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 100, 1, "bash", "bash run_all.sh", 0, kCg);
  fake_proc(t, 200, 100, "vllm", "/usr/bin/python3 /usr/local/bin/vllm serve m", 0, kCg);
  fake_proc(t, 201, 200, "VLLM::Worker_TP", "VLLM::Worker_TP0", 0, kCg);
  fake_proc(t, 300, 100, "python3", "python3 router.py", 0, kCg);  // no GPU, same parent
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{201}}), &root);
  ASSERT_TRUE(v && v->size() == 1);
  EXPECT_EQ(v->front().root_pid, 200u);
  EXPECT_TRUE(v->front().wrappers.empty());
  ASSERT_TRUE(v->front().supervisor);
  EXPECT_EQ(v->front().supervisor->pid, 100u);
  EXPECT_EQ(v->front().port, 8000u);
  EXPECT_EQ(v->front().port_source, "default port");
}

TEST(ServerTree, WorkersWhoseLauncherExitedAreOneServer) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  // Launcher 700 exited; its workers were adopted by PID 1 and keep its group.
  proc_in_group(t, 701, 1, 700, "sglang::schedul", "sglang::scheduler_TP0", kCg);
  proc_in_group(t, 702, 1, 700, "sglang::schedul", "sglang::scheduler_TP1", kCg);
  proc_in_group(t, 800, 1, 800, "python3", "python3 own.py", kCg);  // leads its own group
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{701}, {702}, {800}}), &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 2u);
  const Server& orphans = (*v)[0];
  EXPECT_TRUE(orphans.launcher_exited);
  EXPECT_EQ(orphans.root_pid, std::nullopt);
  EXPECT_EQ(orphans.members.size(), 2u);
  ASSERT_TRUE(orphans.grouping_note);
  EXPECT_NE(orphans.grouping_note->find("launcher exited"), std::string::npos);
  EXPECT_FALSE((*v)[1].launcher_exited);
}

TEST(ServerTree, GenericLauncherTakesItsKindFromTheGpuHolders) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 100, 1, "mpirun",
            "mpirun --allow-run-as-root -np 2 tritonserver --model-repository=/m", 0, kCg);
  fake_proc(t, 101, 100, "tritonserver", "tritonserver --model-repository=/m", 0, kCg);
  fake_proc(t, 102, 100, "tritonserver", "tritonserver --model-repository=/m", 0, kCg);
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{101}, {102}}), &root);
  ASSERT_TRUE(v && v->size() == 1);
  EXPECT_EQ(v->front().kind, "Triton");
  EXPECT_EQ(v->front().root_pid, 100u);
  EXPECT_EQ(v->front().model, std::nullopt);  // a repository is not a model (issue 31)
  EXPECT_EQ(v->front().world_size, 2u);
}

TEST(ServerTree, EnvironmentAndConfigAreReadOrTheReasonSaid) {
  TempTree t;
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 100, 1, "ollama", "/usr/bin/ollama serve", 0, kCg);
  t.write("/proc/100/environ", std::string("HOME=/root\0OLLAMA_HOST=0.0.0.0:11435\0", 38));
  fake_proc(t, 101, 100, "ollama", "/usr/bin/ollama runner --model /b/sha256-9 --port 41000", 0,
            kCg);
  fake_proc(t, 200, 1, "vllm", "vllm serve --config cfg/x.yaml", 0, "/system.slice/v.service");
  t.write("/srv/cfg/x.yaml", "model: meta/L3\nport: 8123\ntensor-parallel-size: 2\n");
  // The link holds the path as the process sees it.
  ASSERT_EQ(::symlink("/srv", t.root().path("/proc/200/cwd").c_str()), 0);
  fake_proc(t, 201, 200, "VLLM::Worker", "VLLM::Worker_TP0", 0, "/system.slice/v.service");
  fake_proc(t, 300, 1, "text-generation-", "text-generation-launcher --num-shard 1", 0, "/t.scope");
  fake_proc(t, 301, 300, "text-generation-", "text-generation-server serve", 0, "/t.scope");
  // /proc/300/environ missing: unreadable.
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{101}, {201}, {301}}), &root);
  ASSERT_TRUE(v && v->size() == 3);
  EXPECT_EQ((*v)[0].kind, "Ollama");
  EXPECT_EQ((*v)[0].port, 11435u);
  EXPECT_EQ((*v)[0].port_source, "OLLAMA_HOST");
  EXPECT_EQ((*v)[0].model, "/b/sha256-9");
  EXPECT_EQ((*v)[1].model, "meta/L3");
  EXPECT_EQ((*v)[1].port, 8123u);
  EXPECT_EQ((*v)[1].port_source, "config cfg/x.yaml");
  EXPECT_EQ((*v)[1].tensor_parallel, 2u);
  EXPECT_EQ((*v)[2].kind, "TGI");
  EXPECT_EQ((*v)[2].port, 3000u);  // TGI's default, said to be so
  EXPECT_EQ((*v)[2].port_source, "default port");
  ASSERT_FALSE((*v)[2].identity_notes.empty());
  EXPECT_NE((*v)[2].identity_notes[0].find("environment of PID 300"), std::string::npos);
}

TEST(ServerTree, AConfigThatIsNotARegularFileIsRefusedNotRead) {
  TempTree t;
  fake_proc(t, 200, 1, "vllm", "vllm serve --config /dev/zero", 0, kCg);
  EXPECT_FALSE(read_server_config(t.root(), 200, "/nonexistent.yaml").ok());
  EXPECT_FALSE(read_server_config(FsRoot("/"), 1, "/dev/zero").ok());
}

TEST(ServerTree, AConfigPathFromTheNodeIsReadInsideTheRoot) {
  // Issue 32: "--config /../../../../tmp/x/secret.yaml" on a gathered host's
  // vLLM command line made the fleet read and report the local file.
  TempTree outside, t;
  outside.write("/secret.yaml", "model: local/secret\nport: 7777\n");
  fake_proc(t, 200, 1, "vllm",
            "vllm serve --config /../../../../../../../.." + outside.dir() + "/secret.yaml", 0,
            kCg);
  fake_proc(t, 201, 200, "VLLM::Worker", "VLLM::Worker_TP0", 0, kCg);
  const FsRoot root = t.root();
  EXPECT_FALSE(read_server_config(root, 200, "/../../../.." + outside.dir() + "/secret.yaml").ok());
  std::optional<std::vector<Server>> v = group_servers(gpus(root, {{201}}), &root);
  ASSERT_TRUE(v && v->size() == 1);
  EXPECT_EQ((*v)[0].kind, "vLLM");
  EXPECT_EQ((*v)[0].model, std::nullopt);
  EXPECT_EQ((*v)[0].port, 8000u);
  EXPECT_EQ((*v)[0].port_source, "default port");
}

TEST(ServerTree, LaunchersRunByTheirScriptPathUnderASupervisor) {
  // Issue 31: two TP=2 SGLang servers run as "python3 .../sglang/launch_server.py"
  // by supervisord (and by pm2's daemon) are two servers with their own ports,
  // not four one-GPU servers on the default port.
  for (const char* owner : {"supervisord", "PM2 v5.3.0: God"}) {
    TempTree t;
    const bool pm2 = std::string(owner).starts_with("PM2");
    fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
    fake_proc(t, 50, 1, owner,
              pm2 ? "PM2 v5.3.0: God Daemon (/root/.pm2)" : "/usr/bin/python3 /usr/bin/supervisord",
              0, kCg);
    const std::string script = "/opt/sglang/python/sglang/launch_server.py";
    fake_proc(t, 100, 50, "python3", "python3 " + script + " --model-path /m/a --tp 2 --port 30000",
              0, kCg);
    fake_proc(t, 200, 50, "python3", "python3 " + script + " --model-path /m/b --tp 2 --port 30001",
              0, kCg);
    for (uint32_t w : {101u, 102u})
      fake_proc(t, w, 100, "sglang::schedul", "sglang::scheduler_TP" + std::to_string(w - 101), 0,
                kCg);
    for (uint32_t w : {201u, 202u})
      fake_proc(t, w, 200, "sglang::schedul", "sglang::scheduler_TP" + std::to_string(w - 201), 0,
                kCg);
    const FsRoot root = t.root();
    std::optional<std::vector<Server>> v =
        group_servers(gpus(root, {{101}, {102}, {201}, {202}}), &root);
    ASSERT_TRUE(v && v->size() == 2) << owner;
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ((*v)[i].kind, "SGLang") << owner;
      EXPECT_EQ((*v)[i].root_pid, i == 0 ? 100u : 200u) << owner;
      EXPECT_EQ((*v)[i].port, i == 0 ? 30000u : 30001u) << owner;
      EXPECT_EQ((*v)[i].port_source, "--port") << owner;
      EXPECT_EQ((*v)[i].tensor_parallel, 2u) << owner;
      EXPECT_EQ((*v)[i].members.size(), 2u) << owner;
      ASSERT_TRUE((*v)[i].supervisor) << owner;
      EXPECT_EQ((*v)[i].supervisor->pid, 50u) << owner;
      EXPECT_TRUE((*v)[i].wrappers.empty()) << owner;
    }
  }
}

TEST(ServerTree, ACycleInTheParentsEndsTheClimb) {
  TempTree t;
  fake_proc(t, 10, 11, "python3", "python3 a.py", 0, kCg);
  fake_proc(t, 11, 10, "python3", "python3 b.py", 0, kCg);
  Climb c = climb_from(t.root(), 10, {});
  EXPECT_EQ(c.end, ClimbEnd::kLimit);
  EXPECT_EQ(c.chain.size(), 2u);
  const ProcTable table = read_proc_table(t.root());
  EXPECT_EQ(descendants(table, 10).size(), 1u);  // 11, and no loop
}

}  // namespace server_tree_test
}  // namespace gt
