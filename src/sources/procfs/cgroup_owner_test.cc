#include "sources/procfs/cgroup_owner.h"

#include <gtest/gtest.h>

namespace gt {
namespace cgroup_owner_test {

constexpr const char* kDockerId =
    "3f1a7c2b9d8e4f6a5b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a";
constexpr const char* kContainerId =
    "8b2f4e6a1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8d0e1f";

ProcessOwner owner_of(const std::string& text) {
  std::optional<ProcessOwner> owner = parse_cgroup_owner(text);
  EXPECT_TRUE(owner.has_value()) << text;
  return owner.value_or(ProcessOwner{});
}

TEST(CgroupOwner, SystemdServiceV2) {
  ProcessOwner o = owner_of("0::/system.slice/sglang.service\n");
  EXPECT_EQ(o.kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(o.name, "sglang.service");
  EXPECT_EQ(o.cgroup_path, "/system.slice/sglang.service");
  EXPECT_FALSE(o.container_id.has_value());
}

TEST(CgroupOwner, RootCgroupIsNullopt) { EXPECT_FALSE(parse_cgroup_owner("0::/\n").has_value()); }

TEST(CgroupOwner, EmptyTextIsNullopt) {
  EXPECT_FALSE(parse_cgroup_owner("").has_value());
  EXPECT_FALSE(parse_cgroup_owner("garbage without colons\n").has_value());
}

TEST(CgroupOwner, DockerSystemdDriver) {
  ProcessOwner o = owner_of(std::string("0::/system.slice/docker-") + kDockerId + ".scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kDocker);
  EXPECT_EQ(o.name, kDockerId);
}

TEST(CgroupOwner, DockerCgroupfsDriverV1PrefersPidsAndMemoryLines) {
  std::string text = std::string(
                         "12:blkio:/\n"
                         "11:devices:/\n"
                         "4:memory:/docker/") +
                     kDockerId +
                     "\n"
                     "3:pids:/docker/" +
                     kDockerId +
                     "\n"
                     "1:name=systemd:/system.slice/docker.service\n";
  ProcessOwner o = owner_of(text);
  EXPECT_EQ(o.kind, OwnerKind::kDocker);
  EXPECT_EQ(o.name, kDockerId);
  EXPECT_EQ(o.cgroup_path, std::string("/docker/") + kDockerId);
}

TEST(CgroupOwner, V1CpuCpuacctLineBeatsNameSystemd) {
  std::string text =
      "5:cpu,cpuacct:/slurm/uid_1000/job_77/step_0\n"
      "1:name=systemd:/system.slice/slurmd.service\n";
  ProcessOwner o = owner_of(text);
  EXPECT_EQ(o.kind, OwnerKind::kSlurmJob);
  EXPECT_EQ(o.name, "77");
}

TEST(CgroupOwner, HybridPrefersV2LineWithPath) {
  std::string text =
      "4:memory:/user.slice\n"
      "1:name=systemd:/system.slice/vllm.service\n"
      "0::/system.slice/vllm.service\n";
  ProcessOwner o = owner_of(text);
  EXPECT_EQ(o.kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(o.name, "vllm.service");
}

TEST(CgroupOwner, HybridWithRootV2LineFallsBackToV1) {
  std::string text = std::string("4:memory:/docker/") + kDockerId + "\n0::/\n";
  EXPECT_EQ(owner_of(text).kind, OwnerKind::kDocker);
}

TEST(CgroupOwner, ContainerdScope) {
  ProcessOwner o =
      owner_of(std::string("0::/system.slice/containerd-") + kContainerId + ".scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kContainerd);
  EXPECT_EQ(o.name, kContainerId);
}

TEST(CgroupOwner, CriContainerdOutsideKubepodsIsContainerd) {
  ProcessOwner o =
      owner_of(std::string("0::/system.slice/cri-containerd-") + kContainerId + ".scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kContainerd);
  EXPECT_EQ(o.name, kContainerId);
}

TEST(CgroupOwner, PodmanLibpodScope) {
  ProcessOwner o =
      owner_of(std::string("0::/machine.slice/libpod-") + kContainerId + ".scope/container\n");
  EXPECT_EQ(o.kind, OwnerKind::kPodman);
  EXPECT_EQ(o.name, kContainerId);
}

TEST(CgroupOwner, RootlessPodmanUnderUserManagerIsPodman) {
  ProcessOwner o = owner_of(std::string("0::/user.slice/user-1000.slice/user@1000.service/"
                                        "user.slice/libpod-") +
                            kContainerId + ".scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kPodman);
}

TEST(CgroupOwner, KubernetesSystemdDriverBurstable) {
  std::string path = std::string(
                         "/kubepods.slice/kubepods-burstable.slice/"
                         "kubepods-burstable-pod5f0c2a0e_1b2c_4d3e_8f4a_9b8c7d6e5f40.slice/"
                         "cri-containerd-") +
                     kContainerId + ".scope";
  ProcessOwner o = owner_of("0::" + path + "\n");
  EXPECT_EQ(o.kind, OwnerKind::kKubernetesPod);
  EXPECT_EQ(o.name, "5f0c2a0e-1b2c-4d3e-8f4a-9b8c7d6e5f40");
  EXPECT_EQ(o.container_id, kContainerId);
  EXPECT_EQ(o.cgroup_path, path);
}

TEST(CgroupOwner, KubernetesGuaranteedPodDirectlyUnderKubepods) {
  ProcessOwner o = owner_of(std::string("0::/kubepods.slice/"
                                        "kubepods-pod0a1b2c3d_4e5f_6a7b_8c9d_0e1f2a3b4c5d.slice/"
                                        "crio-") +
                            kContainerId + ".scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kKubernetesPod);
  EXPECT_EQ(o.name, "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d");
  EXPECT_EQ(o.container_id, kContainerId);
}

TEST(CgroupOwner, KubernetesDockerShimPrefix) {
  ProcessOwner o =
      owner_of(std::string("0::/kubepods.slice/kubepods-besteffort.slice/"
                           "kubepods-besteffort-pod11112222_3333_4444_5555_666677778888"
                           ".slice/docker-") +
               kDockerId + ".scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kKubernetesPod);
  EXPECT_EQ(o.name, "11112222-3333-4444-5555-666677778888");
  EXPECT_EQ(o.container_id, kDockerId);
}

TEST(CgroupOwner, KubernetesCgroupfsDriverBesteffort) {
  ProcessOwner o = owner_of(std::string("11:memory:/kubepods/besteffort/"
                                        "pod3c9e1d2a-7b6f-4a5e-9d8c-1b2a3c4d5e6f/") +
                            kContainerId + "\n");
  EXPECT_EQ(o.kind, OwnerKind::kKubernetesPod);
  EXPECT_EQ(o.name, "3c9e1d2a-7b6f-4a5e-9d8c-1b2a3c4d5e6f");
  EXPECT_EQ(o.container_id, kContainerId);
}

TEST(CgroupOwner, KubernetesCgroupfsGuaranteedPod) {
  ProcessOwner o = owner_of(std::string("0::/kubepods/pod3c9e1d2a-7b6f-4a5e-9d8c-1b2a3c4d5e6f/") +
                            kContainerId + "\n");
  EXPECT_EQ(o.kind, OwnerKind::kKubernetesPod);
  EXPECT_EQ(o.name, "3c9e1d2a-7b6f-4a5e-9d8c-1b2a3c4d5e6f");
}

TEST(CgroupOwner, KubernetesPodWithoutContainerHasNoContainerId) {
  ProcessOwner o = owner_of(
      "0::/kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod5f0c2a0e_1b2c_4d3e_8f4a_9b8c7d6e5f40.slice\n");
  EXPECT_EQ(o.kind, OwnerKind::kKubernetesPod);
  EXPECT_FALSE(o.container_id.has_value());
}

TEST(CgroupOwner, SlurmV2Step) {
  ProcessOwner o = owner_of("0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_0\n");
  EXPECT_EQ(o.kind, OwnerKind::kSlurmJob);
  EXPECT_EQ(o.name, "123");
}

TEST(CgroupOwner, SlurmV1Step) {
  ProcessOwner o = owner_of("7:memory:/slurm/uid_1000/job_123/step_0\n");
  EXPECT_EQ(o.kind, OwnerKind::kSlurmJob);
  EXPECT_EQ(o.name, "123");
}

TEST(CgroupOwner, SlurmstepdItselfIsAUnit) {
  ProcessOwner o = owner_of("0::/system.slice/slurmstepd.scope/system\n");
  EXPECT_EQ(o.kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(o.name, "slurmstepd.scope");
}

TEST(CgroupOwner, LoginSession) {
  ProcessOwner o = owner_of("0::/user.slice/user-1000.slice/session-3.scope\n");
  EXPECT_EQ(o.kind, OwnerKind::kUserSession);
  EXPECT_EQ(o.name, "session-3 (uid 1000)");
}

TEST(CgroupOwner, UserUnitReportsTheUnit) {
  ProcessOwner o = owner_of(
      "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
      "foo.service\n");
  EXPECT_EQ(o.kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(o.name, "foo.service");
}

TEST(CgroupOwner, DeepestUnitInDelegatedSubtree) {
  ProcessOwner o = owner_of("0::/system.slice/trainer.service/payload\n");
  EXPECT_EQ(o.kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(o.name, "trainer.service");
}

TEST(CgroupOwner, UnknownPathIsPlainCgroup) {
  ProcessOwner o = owner_of("0::/batch/gpu-jobs/42\n");
  EXPECT_EQ(o.kind, OwnerKind::kCgroup);
  EXPECT_EQ(o.name, "/batch/gpu-jobs/42");
  EXPECT_EQ(o.cgroup_path, "/batch/gpu-jobs/42");
}

TEST(CgroupOwner, DeletedSuffixIsDropped) {
  ProcessOwner o = owner_of("0::/system.slice/sglang.service (deleted)\n");
  EXPECT_EQ(o.name, "sglang.service");
  EXPECT_EQ(o.cgroup_path, "/system.slice/sglang.service");
}

TEST(CgroupOwner, NestedDockerReportsInnermost) {
  std::string inner(64, 'b');
  ProcessOwner o = owner_of(std::string("0::/docker/") + kDockerId + "/docker/" + inner + "\n");
  EXPECT_EQ(o.kind, OwnerKind::kDocker);
  EXPECT_EQ(o.name, inner);
}

TEST(CgroupOwner, DockerServiceItselfIsAUnitNotAContainer) {
  ProcessOwner o = owner_of("0::/system.slice/docker.service\n");
  EXPECT_EQ(o.kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(o.name, "docker.service");
}

}  // namespace cgroup_owner_test
}  // namespace gt
