#include "model/fingerprint.h"

#include <gtest/gtest.h>

#include "model/snapshot.h"

namespace gt {
namespace fingerprint_test {

TEST(Fingerprint, FromTheSnapshotUnknownStaysNull) {
  NodeSnapshot s;
  s.kernel_release = "6.8.0-51-generic";
  s.kernel_module_version = "590.48.01";
  GpuState g;
  g.uuid = "GPU-1";
  g.serial = "1654922003345";
  g.board_part_number = "692-2G520-0200-000";
  g.pci_bus_id = "00000000:19:00.0";
  g.pcie.max_gen = 5;
  g.pcie.max_width = 16;
  s.gpus.push_back(g);
  s.gpus.push_back(GpuState{});  // a GPU NVML says nothing about
  MountInfo m;
  m.path = "/data";
  m.source = "/dev/nvme0n1p1";
  m.mounted_device = "nvme0n1p1";
  m.fs_type = "ext4";
  s.mounts.push_back(m);
  MountInfo unread;
  unread.path = "/scratch";
  unread.error = "the mount table could not be read";
  s.mounts.push_back(unread);

  Fingerprint f = fingerprint_of(s, 1767225600);
  EXPECT_EQ(f.taken_unix_s, 1767225600);
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].pci_bus_id, "0000:19:00.0");
  EXPECT_EQ(f.gpus[0].serial, "1654922003345");
  EXPECT_EQ(f.gpus[0].pcie_max_gen, 5u);
  EXPECT_EQ(f.gpus[0].board_part_number, "692-2G520-0200-000");
  EXPECT_EQ(f.gpus[1], GpuPrint{});
  EXPECT_EQ(f.driver.kernel_module_version, "590.48.01");
  EXPECT_FALSE(f.driver.libcuda_version);  // no readiness stage
  EXPECT_EQ(f.kernel_release, "6.8.0-51-generic");
  ASSERT_EQ(f.mounts.size(), 1u);  // an unread mount is not a fingerprint
  EXPECT_EQ(f.mounts[0].device, "nvme0n1p1");
  EXPECT_FALSE(f.container);     // the collector's
  EXPECT_FALSE(f.server_units);  // servers not grouped: not known
}

TEST(Fingerprint, TheUnitsThatOwnTheServersEachOnce) {
  NodeSnapshot s;
  auto server = [](std::string kind, std::optional<OwnerKind> owner, std::string name) {
    Server sv;
    sv.kind = std::move(kind);
    sv.owner_kind = owner;
    sv.owner_name = std::move(name);
    return sv;
  };
  Server a = server("SGLang", OwnerKind::kSystemdUnit, "sglang.service");
  a.auto_started = true;
  a.restart_policy = "Restart=always";
  s.servers = {a, server("SGLang", OwnerKind::kSystemdUnit, "sglang.service"),
               server("vLLM", OwnerKind::kDocker, std::string(64, 'c')),
               server("torchrun", OwnerKind::kSystemdUserUnit, "job.service")};
  Fingerprint f = fingerprint_of(s, 1767225600);
  ASSERT_TRUE(f.server_units);
  ASSERT_EQ(f.server_units->size(), 2u);  // a container is not a unit
  EXPECT_EQ((*f.server_units)[0],
            (UnitPrint{"sglang.service", "SGLang", "Restart=always", true, false}));
  EXPECT_TRUE((*f.server_units)[1].user_unit);
  s.servers->clear();
  EXPECT_EQ(fingerprint_of(s, 0).server_units, std::vector<UnitPrint>{});  // read: none
}

TEST(Fingerprint, FindPackageAcrossEnvironments) {
  Fingerprint f;
  f.python.push_back({"/a", {}, {{"torch", "2.7.0", "/a", {}, true, {}}}});
  f.python.push_back({"/b", {}, {{"sglang", "0.4.6", "/b", {}, true, {}}}});
  ASSERT_TRUE(find_package(f, "sglang"));
  EXPECT_EQ(find_package(f, "sglang")->version, "0.4.6");
  EXPECT_FALSE(find_package(f, "vllm"));
}

}  // namespace fingerprint_test
}  // namespace gt
