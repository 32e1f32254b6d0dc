#include "sources/procfs/servers.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace servers_test {

GpuProcess proc(uint32_t pid, uint64_t mib, const std::string& type = "compute") {
  GpuProcess p;
  p.pid = pid;
  p.type = type;
  p.used_memory_bytes = mib << 20;
  p.visible = true;
  return p;
}

GpuState gpu(uint32_t index, std::vector<GpuProcess> procs) {
  GpuState g;
  g.index = index;
  g.memory_total_bytes = uint64_t(81559) << 20;
  g.processes = std::move(procs);
  return g;
}

TEST(Servers, WorkersUnderOneLauncherAreOneServerWithTheirOwnMemory) {
  TempTree t;
  t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 3141, 1, "python3",
            "python3 -m sglang.launch_server --model-path /models/m --tp 2 --port 30000", 997,
            "/system.slice/sglang.service");
  fake_proc(t, 3187, 3141, "sglang::schedul", "sglang::scheduler_TP0", 997,
            "/system.slice/sglang.service");
  fake_proc(t, 3188, 3141, "sglang::schedul", "sglang::scheduler_TP1", 997,
            "/system.slice/sglang.service");
  fake_proc(t, 5000, 1, "python3", "python3 train.py", 1000, "/user.slice/session-2.scope");
  t.write("/etc/systemd/system/sglang.service", "[Service]\nRestart=on-failure\n");
  t.write("/etc/systemd/system/sglang.service.d/override.conf", "[Service]\nRestart=always\n");
  NodeSnapshot s;
  GpuProcess a = proc(3187, 70000), b = proc(3188, 70000), c = proc(5000, 1000);
  for (GpuProcess* p : {&a, &b})
    p->owner = ProcessOwner{OwnerKind::kSystemdUnit, "sglang.service", std::nullopt, ""};
  s.gpus = {gpu(0, {a, c}), gpu(1, {b})};
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 2u);
  const Server& sg = (*v)[0];
  EXPECT_EQ(sg.kind, "SGLang");
  EXPECT_EQ(sg.root_pid, 3141u);
  ASSERT_EQ(sg.members.size(), 2u);
  EXPECT_EQ(sg.model, "/models/m");
  EXPECT_EQ(sg.port, 30000u);
  EXPECT_EQ(sg.tensor_parallel, 2u);
  ASSERT_EQ(sg.gpus.size(), 2u);
  EXPECT_EQ(sg.gpus[0].memory_bytes, uint64_t(70000) << 20);  // its own, not the GPU's
  EXPECT_EQ(sg.restart_policy, "Restart=always");             // the drop-in wins
  EXPECT_TRUE(sg.restarts_when_signalled);
  // Started 1000+3141 ticks after boot: within the auto-start window.
  EXPECT_EQ(sg.started_after_boot_s, (1000 + 3141) / 100);
  EXPECT_TRUE(sg.auto_started);
  const Server& train = (*v)[1];
  EXPECT_EQ(train.kind, "unknown (train.py)");  // its program, not its interpreter
  EXPECT_FALSE(train.recognised);
  EXPECT_EQ(train.gpus[0].memory_bytes, uint64_t(1000) << 20);
}

TEST(Servers, UnreadableProcessesAndCapturesDegradeToOneServerEach) {
  NodeSnapshot s;
  GpuProcess gone = proc(777, 10);
  gone.visible = false;
  s.gpus = {gpu(0, {gone, proc(778, 20, "graphics")})};
  TempTree t;
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 2u);
  EXPECT_TRUE((*v)[0].grouping_note.has_value());
  EXPECT_FALSE((*v)[0].root_pid.has_value());
  EXPECT_TRUE((*v)[1].graphics_only);
  std::optional<std::vector<Server>> cap = group_servers(s, nullptr);
  ASSERT_TRUE(cap);
  EXPECT_NE((*cap)[0].grouping_note->find("capture"), std::string::npos);
  // No process list at all: unknown, not an empty list.
  NodeSnapshot none;
  none.gpus = {GpuState{}};
  EXPECT_FALSE(group_servers(none, nullptr).has_value());
}

TEST(Servers, ACycleInTheTreeEnds) {
  TempTree t;
  fake_proc(t, 10, 11, "python3", "python3 a.py", 0, "/x.scope");
  fake_proc(t, 11, 10, "python3", "python3 b.py", 0, "/x.scope");
  NodeSnapshot s;
  s.gpus = {gpu(0, {proc(10, 5)})};
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->size(), 1u);
}

TEST(Servers, ListeningPortsFromSocketInodes) {
  TempTree t;
  t.symlink("socket:[4242]", "/proc/9/fd/3");
  t.symlink("/dev/null", "/proc/9/fd/0");
  t.write("/proc/9/net/tcp",
          "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
          "timeout inode\n"
          "   0: 00000000:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000   997 "
          "       0 4242 1 0000000000000000 100 0 0 10 0\n"
          "   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   997 "
          "       0 9999 1 0000000000000000 100 0 0 10 0\n");
  EXPECT_EQ(listening_ports(t.root(), 9), std::vector<uint32_t>{30000});
}

TEST(Servers, DockerRestartPolicy) {
  TempTree t;
  const std::string id(64, 'c');
  t.write("/var/lib/docker/containers/" + id + "/hostconfig.json",
          R"({"Binds":null,"RestartPolicy":{"Name":"unless-stopped","MaximumRetryCount":0}})");
  std::optional<RestartPolicy> p = owner_restart_policy(t.root(), OwnerKind::kDocker, id);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->text, "Docker restart policy unless-stopped");
  EXPECT_TRUE(p->restarts);
  EXPECT_FALSE(owner_restart_policy(t.root(), OwnerKind::kDocker, "nope"));
}

// Issue 52: a server its container's start script started, in a container
// a unit makes with `docker run --rm --name specforge` (an argument with a
// space in the client's argv). Docker's record is checked against the
// process tree: a State.Pid that is not the container's PID 1 is unknown.
struct SpecforgeTree {
  TempTree t;
  const std::string id = std::string(64, 'd');
  SpecforgeTree(uint32_t state_pid) {
    const std::string cg = "/system.slice/docker-" + id + ".scope";
    t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
    fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
    fake_proc(t, 3080, 1, "docker", "x", 0, "/system.slice/specforge.service");
    t.write("/proc/3080/cmdline", std::string("/usr/bin/docker\0run\0--label\0purpose=hidden "
                                              "state dump\0--rm\0--name\0specforge\0img\0",
                                              80));
    fake_proc(t, 3100, 1, "containerd-shim", "containerd-shim-runc-v2", 0,
              "/system.slice/containerd.service");
    fake_proc(t, 3120, 3100, "start.sh", "/bin/bash /workspace/start.sh", 0, cg);
    fake_proc(t, 3142, 3120, "sleep", "sleep infinity", 0, cg);
    fake_proc(t, 3141, 3120, "python3", "python3 -m sglang.launch_server --tp 1", 0, cg);
    fake_proc(t, 3187, 3141, "sglang::schedul", "sglang::scheduler_TP0", 0, cg);
    const std::string d = "/var/lib/docker/containers/" + id + "/";
    t.write(d + "config.v2.json", R"({"Created":"2026-01-01T00:00:29Z","Name":"/specforge",)"
                                  R"("Path":"/workspace/start.sh","State":{"Pid":)" +
                                      std::to_string(state_pid) + "}}");
    t.write(d + "hostconfig.json", R"({"AutoRemove":true,"RestartPolicy":{"Name":"no"}})");
  }
  Server server() {
    NodeSnapshot s;
    GpuProcess a = proc(3187, 70000);
    a.owner = ProcessOwner{OwnerKind::kDocker, id, std::nullopt, ""};
    s.gpus = {gpu(0, {a})};
    const FsRoot root = t.root();
    return group_servers(s, &root).value().at(0);
  }
};

TEST(Servers, AServerItsContainersScriptStartedIsNotTheContainersMain) {
  SpecforgeTree tree(3120);
  Server sv = tree.server();
  ASSERT_TRUE(sv.container);
  EXPECT_EQ(sv.container->created_by_unit, "specforge.service");  // argv split on NULs
  EXPECT_EQ(sv.container->init_pid, 3120u);
  EXPECT_EQ(sv.container_main, false);
  EXPECT_FALSE(sv.restarts_when_signalled);
  EXPECT_TRUE(sv.identity_notes.empty());
}

TEST(Servers, AStatePidTheTreeDoesNotBearOutIsUnknown) {
  for (uint32_t bad : {3141u, 3100u, 99999u}) {  // in the container under its PID 1; the shim; none
    SpecforgeTree tree(bad);
    Server sv = tree.server();
    ASSERT_TRUE(sv.container);
    EXPECT_FALSE(sv.container->init_pid) << bad;
    EXPECT_FALSE(sv.container_main) << bad;
    ASSERT_EQ(sv.identity_notes.size(), 1u) << bad;
    EXPECT_NE(sv.identity_notes[0].find("not bear out"), std::string::npos);
  }
}

// A program of no known name: its flags decide when one server's parser
// alone defines them (holders/flag_grammar.h); else it is named by its
// program, through its interpreter and the shell script that started it.
TEST(Servers, AGenericProgramIsNamedByItsFlagsOrItsProgram) {
  TempTree t;
  t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  // A leader script whose child is the server: a script of one's own over
  // SGLang's ServerArgs ("--tp" is argparse's prefix of --tp-size).
  fake_proc(t, 900, 1, "bash", "/bin/bash /opt/start.sh", 0, "/system.slice/serve.service");
  fake_proc(t, 901, 900, "python3",
            "python3 /opt/app/serve.py --model-path /models/qwen --tp 2 "
            "--mem-fraction-static 0.85 --port 30010",
            0, "/system.slice/serve.service");
  // Of no kind by its flags: its program, not "python3".
  fake_proc(t, 950, 1, "python3", "/usr/bin/python3 -u /srv/worker.py --port 9000", 1000,
            "/user.slice/session-2.scope");
  // Flags of two servers at once: undecided, and said.
  fake_proc(t, 970, 1, "main", "/app/main --mem-fraction-static 0.8 --kv-transfer-config {}", 1000,
            "/user.slice/session-2.scope");
  NodeSnapshot s;
  s.gpus = {gpu(0, {proc(901, 30000), proc(950, 1000)}), gpu(1, {proc(901, 30000), proc(970, 10)})};
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 3u);
  const Server& sg = (*v)[0];
  EXPECT_EQ(sg.kind, "SGLang");
  EXPECT_TRUE(sg.recognised);
  EXPECT_EQ(sg.root_pid, 901u);
  EXPECT_EQ(sg.tensor_parallel, 2u);
  EXPECT_EQ(sg.port, 30010u);
  EXPECT_EQ(sg.model, "/models/qwen");
  ASSERT_EQ(sg.identity_notes.size(), 1u);
  EXPECT_EQ(sg.identity_notes[0],
            "kind SGLang by its flags (--mem-fraction-static, defined by SGLang's parser alone): "
            "serve.py is no entry point of SGLang's");
  EXPECT_EQ((*v)[1].kind, "unknown (worker.py)");
  EXPECT_FALSE((*v)[1].recognised);
  EXPECT_EQ((*v)[2].kind, "unknown (main)");
  EXPECT_FALSE((*v)[2].recognised);
  ASSERT_EQ((*v)[2].identity_notes.size(), 1u);
  EXPECT_NE((*v)[2].identity_notes[0].find("are SGLang and vLLM's at once"), std::string::npos);
}

}  // namespace servers_test
}  // namespace gt

namespace gt {
namespace servers_test {

TEST(Servers, AUserManagersUnitIsNotTheSystemsUnitOfThatName) {
  TempTree t;
  const std::string cg = "/user.slice/user-1000.slice/user@1000.service/app.slice/ollama.service";
  fake_proc(t, 77, 1, "ollama", "/usr/bin/ollama serve", 1000, cg);
  t.write("/etc/systemd/system/ollama.service", "[Service]\nRestart=always\n");
  NodeSnapshot s;
  GpuProcess p = proc(77, 9000);
  p.owner = ProcessOwner{OwnerKind::kSystemdUnit, "ollama.service", std::nullopt, cg};
  s.gpus = {gpu(0, {p})};
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)[0].owner_kind, OwnerKind::kSystemdUserUnit);
  EXPECT_FALSE((*v)[0].restart_policy.has_value());  // not the system unit's
}

}  // namespace servers_test
}  // namespace gt

namespace gt {
namespace servers_test {

TEST(Servers, RestartPolicyAsSystemdParsesIt) {
  TempTree t;
  t.write("/etc/systemd/system/a.service", "[Service]\n  Restart = always\nRestartSec=5\n");
  EXPECT_EQ(owner_restart_policy(t.root(), OwnerKind::kSystemdUnit, "a.service")->text,
            "Restart=always");
  // A template's drop-in applies to its instances; the instance's own, later.
  t.write("/lib/systemd/system/w@.service", "[Service]\nExecStart=/bin/true\n");
  t.write("/etc/systemd/system/w@.service.d/10-restart.conf", "[Service]\nRestart=on-failure\n");
  std::optional<RestartPolicy> w =
      owner_restart_policy(t.root(), OwnerKind::kSystemdUnit, "w@3.service");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->text, "Restart=on-failure");
  EXPECT_TRUE(w->restarts);
  t.write("/etc/systemd/system/w@3.service.d/20-no.conf", "[Service]\nRestart=no\n");
  EXPECT_FALSE(owner_restart_policy(t.root(), OwnerKind::kSystemdUnit, "w@3.service")->restarts);
  // systemd-run's transient units live in /run/systemd/transient.
  t.write("/run/systemd/transient/run-u7.service", "[Service]\nRestart=always\n");
  EXPECT_TRUE(owner_restart_policy(t.root(), OwnerKind::kSystemdUnit, "run-u7.service")->restarts);
  // No unit file at all: unknown, not "no".
  EXPECT_FALSE(owner_restart_policy(t.root(), OwnerKind::kSystemdUnit, "gone.service").has_value());
}

// btime from outside is range-checked before process ages are added to it:
// near INT64_MAX the sum overflowed (undefined); now the start is unknown.
TEST(Servers, ABtimeOutOfRangeGivesNoStartTime) {
  TempTree t;
  t.write("/proc/stat", "cpu 1 2 3\nbtime 9223372036854775807\n");
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 5000, 1, "python3", "python3 train.py", 1000, "/user.slice/session-2.scope");
  NodeSnapshot s;
  s.gpus = {gpu(0, {proc(5000, 1000)})};
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 1u);
  EXPECT_FALSE((*v)[0].start_time_unix_s);
  EXPECT_FALSE((*v)[0].started_after_boot_s);
}

TEST(Servers, AProcessLauncherIsNamedByWhatItRuns) {
  // Triton's TensorRT-LLM backend: MPMD segments of tritonserver under
  // mpirun, its ranks "tritonserver" too (the kind from the launch line).
  TempTree t;
  t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
  fake_proc(t, 1, 0, "systemd", "/sbin/init", 0, "/init.scope");
  fake_proc(t, 700, 1, "mpirun",
            "mpirun --allow-run-as-root -n 1 /opt/tritonserver/bin/tritonserver "
            "--model-repository=/models --http-port=8000 : -n 1 "
            "/opt/tritonserver/bin/tritonserver --model-repository=/models",
            0, "/system.slice/docker-ab.scope");
  fake_proc(t, 701, 700, "tritonserver",
            "/opt/tritonserver/bin/tritonserver "
            "--model-repository=/models --http-port=8000",
            0, "/system.slice/docker-ab.scope");
  // A data-parallel job of a program of no known kind under mpirun.
  fake_proc(t, 800, 1, "mpirun", "mpirun -np 2 --bind-to none python3 train.py --lr 3e-4", 1000,
            "/user.slice/session-2.scope");
  fake_proc(t, 801, 800, "python3", "python3 train.py --lr 3e-4", 1000,
            "/user.slice/session-2.scope");
  fake_proc(t, 802, 800, "python3", "python3 train.py --lr 3e-4", 1000,
            "/user.slice/session-2.scope");
  NodeSnapshot s;
  s.gpus = {gpu(0, {proc(701, 30000), proc(801, 1000)}), gpu(1, {proc(802, 1000)})};
  const FsRoot root = t.root();
  std::optional<std::vector<Server>> v = group_servers(s, &root);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[0].kind, "Triton");
  EXPECT_TRUE((*v)[0].recognised);
  EXPECT_EQ((*v)[1].kind, "unknown (train.py)");
  EXPECT_FALSE((*v)[1].recognised);
}

}  // namespace servers_test
}  // namespace gt
