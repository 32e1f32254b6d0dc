#include "sources/procfs/docker_container.h"

#include <gtest/gtest.h>

#include "holders/identity.h"
#include "sources/procfs/server_tree.h"
#include "util/test_util.h"

namespace gt {
namespace docker_container_test {

const std::string kId(64, 'a');

// The shape moby writes (container/container.go's Container, State and
// MountPoint; fields trimmed): a container `docker run --rm --name
// specforge -v /data:/data` made at 00:00:29.8 UTC, its PID 1 host PID 3120.
constexpr const char* kConfig = R"({"StreamConfig":{},"State":{"Running":true,"Paused":false,
"Pid":3120,"ExitCode":0,"StartedAt":"2026-01-01T00:00:30.1Z"},"ID":"aaaa",
"Created":"2026-01-01T00:00:29.812345678Z","Path":"/workspace/start.sh","Args":["--serve"],
"Config":{"Hostname":"aaaaaaaaaaaa","Image":"specforge:kimi","Cmd":["/workspace/start.sh"]},
"Name":"/specforge","MountPoints":{"/data":{"Source":"/data","Destination":"/data","RW":true,
"Type":"bind"},"/models":{"Source":"/models","Destination":"/models","RW":false,"Type":"bind"},
"/cache":{"Source":"","Destination":"/cache","Name":"v1","Driver":"local","Type":"volume"}}})";

TEST(DockerContainer, ReadsConfigAndHostConfig) {
  TempTree t;
  t.write("/var/lib/docker/containers/" + kId + "/config.v2.json", kConfig);
  t.write("/var/lib/docker/containers/" + kId + "/hostconfig.json",
          R"({"AutoRemove":true,"RestartPolicy":{"Name":"","MaximumRetryCount":0}})");
  ContainerInfo c = read_docker_container(t.root(), kId).value();
  EXPECT_EQ(c.id, kId);
  EXPECT_EQ(c.name, "specforge");
  EXPECT_EQ(c.created_unix_s, 1767225629);
  EXPECT_EQ(c.command, "/workspace/start.sh --serve");
  EXPECT_EQ(c.image, "specforge:kimi");
  EXPECT_EQ(c.init_pid, 3120u);
  ASSERT_EQ(c.mounts.size(), 2u);  // the volume with no source yet is left out
  EXPECT_EQ(c.mounts[0].source, "/data");
  EXPECT_EQ(c.mounts[1].destination, "/models");
  EXPECT_EQ(c.restart_policy, "no");  // Docker's default, written as ""
  EXPECT_EQ(c.auto_remove, true);
}

TEST(DockerContainer, DamagedFilesLeaveFieldsNullNeverGuessed) {
  TempTree t;
  const std::string dir = "/var/lib/docker/containers/" + kId + "/";
  t.write(dir + "config.v2.json", std::string(kConfig).substr(0, 120));  // cut by a crash
  EXPECT_FALSE(read_docker_container(t.root(), kId));
  t.write(dir + "hostconfig.json", R"({"RestartPolicy":{"Name":7},"AutoRemove":"yes"})");
  ContainerInfo c = read_docker_container(t.root(), kId).value();
  EXPECT_FALSE(c.restart_policy);
  EXPECT_FALSE(c.auto_remove);
  EXPECT_FALSE(c.created_unix_s);
  t.write(dir + "config.v2.json",
          R"({"Created":"yesterday","State":{"Pid":-4},"Name":"","MountPoints":[1]})");
  c = read_docker_container(t.root(), kId).value();
  EXPECT_FALSE(c.created_unix_s);
  EXPECT_FALSE(c.init_pid);
  EXPECT_FALSE(c.name);
  EXPECT_TRUE(c.mounts.empty());
  t.write(dir + "config.v2.json", "[1,2]");
  t.write(dir + "hostconfig.json", "");
  EXPECT_FALSE(read_docker_container(t.root(), kId));
}

TEST(DockerContainer, Rfc3339AsGoWritesIt) {
  EXPECT_EQ(parse_rfc3339("2026-01-01T00:00:29Z"), 1767225629);
  EXPECT_EQ(parse_rfc3339("2026-01-01T02:00:29.5+02:00"), 1767225629);
  EXPECT_EQ(parse_rfc3339("2025-12-31T23:00:29-01:00"), 1767225629);
  for (const char* bad :
       {"", "2026-01-01", "2026-01-01T00:00:29", "2026-02-31T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-01-01T00:00:29.Z", "2026-01-01T00:00:29Zjunk", "2026-01-01T24:00:00Z"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

TEST(DockerContainer, RunNameByTheCliGrammar) {
  auto name = [](const char* cmd) { return run_container_name(split_cmdline(cmd)); };
  EXPECT_EQ(name("/usr/bin/docker run --rm --name specforge --gpus all img"), "specforge");
  EXPECT_EQ(name("docker run --name=job -v /data:/data img"), "job");
  EXPECT_EQ(name("docker -H unix:///run/docker.sock container run -dit --name x img"), "x");
  EXPECT_EQ(name("podman run --replace --name p img"), "p");
  // After the image, --name belongs to the container's own command.
  EXPECT_FALSE(name("docker run -v /d:/d img python serve.py --name other"));
  EXPECT_FALSE(name("docker run --rm img"));
  EXPECT_FALSE(name("docker start --name x"));
  EXPECT_FALSE(name("dockerd --name x"));
  EXPECT_FALSE(name("docker run --name"));
}

TEST(DockerContainer, TheUnitWhoseClientRunsIt) {
  TempTree t;
  ProcTable table;
  fake_proc(t, 3080, 1, "docker",
            "/usr/bin/docker run --rm --name specforge --gpus all specforge:kimi", 0,
            "/system.slice/specforge.service");
  fake_proc(t, 3081, 1, "docker", "/usr/bin/docker run --rm --name other img", 0,
            "/system.slice/other.service");
  fake_proc(t, 3082, 1, "docker", "docker run --name tmp img", 1000,
            "/user.slice/user-1000.slice/session-3.scope");
  for (uint32_t pid : {3080u, 3081u, 3082u}) table.procs[pid] = {1, 0, std::nullopt};
  EXPECT_EQ(unit_running_container(t.root(), table, "specforge"), "specforge.service");
  EXPECT_FALSE(unit_running_container(t.root(), table, "tmp"));  // a person's shell
  EXPECT_FALSE(unit_running_container(t.root(), table, "gone"));
}

}  // namespace docker_container_test
}  // namespace gt
