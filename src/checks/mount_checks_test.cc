#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace mount_checks_test {

MountInfo missing_data() {
  MountInfo m;
  m.path = "/data";
  m.mount_point = "/";
  m.fs_type = "ext4";
  m.source = "/dev/vda1";
  m.total_bytes = 20'000'000'000ull;
  m.available_bytes = 12'000'000'000ull;
  m.expected_by = "/etc/fstab:3: UUID=9f1c /data ext4 defaults,nofail 0 2";
  m.expected_mount_point = "/data";
  m.expected_options = "defaults,nofail";
  m.expected_noauto = false;
  m.problem = MountProblem::kNotMounted;
  m.plain_directory = true;
  return m;
}

TEST(MountChecks, MissingMountIsCriticalNamesTheLineAndComesFirstInThePlan) {
  Report r = healthy_node(1);
  r.snapshot.disks[0].available_bytes = 10;  // / nearly full: disk.low_space critical
  r.snapshot.mounts = {missing_data(), missing_data()};
  r.snapshot.mounts[1].path = "/data/ckpt";  // the same missing mount: one finding
  judge(r, {});
  std::vector<const Finding*> mounts;
  for (const Finding& f : r.findings)
    if (f.id == "mount.missing") mounts.push_back(&f);
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(mounts[0]->severity, Severity::kCritical);
  EXPECT_NE(mounts[0]->title.find("/data is not mounted although /etc/fstab:3"), std::string::npos)
      << mounts[0]->title;
  EXPECT_NE(mounts[0]->evidence.find("UUID=9f1c /data ext4"), std::string::npos);
  EXPECT_NE(mounts[0]->evidence.find("18.6 GiB vda1, ext4, 60% free"), std::string::npos)
      << mounts[0]->evidence;
  EXPECT_EQ(mounts[0]->commands.front(), "sudo mount /data");
  ASSERT_GE(r.plan.size(), 2u);
  EXPECT_EQ(r.plan[0].finding_ids.front(), "mount.missing");
  EXPECT_NE(r.plan[0].text.find("before resuming the job"), std::string::npos);
  EXPECT_EQ(r.plan[1].finding_ids.front(), "disk.low_space");
}

TEST(MountChecks, NoautoIsAWarningAndAUnitIsStartedBySystemctl) {
  Report r = healthy_node(1);
  MountInfo m = missing_data();
  m.expected_noauto = true;
  m.expected_by = "/etc/systemd/system/data.mount: What=/dev/sdb1 Where=/data";
  r.snapshot.mounts = {m};
  std::vector<Finding> out;
  check_mounts(r.snapshot, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kWarning);
  EXPECT_EQ(out[0].commands.front(), "sudo systemctl start data.mount");
}

TEST(MountChecks, ReadOnlyAfterErrorsAndSharedFilesystems) {
  Report r = healthy_node(1);
  MountInfo ro;
  ro.path = "/ckpt";
  ro.mount_point = "/ckpt";
  ro.fs_type = "ext4";
  ro.source = "/dev/nvme2n1";
  ro.read_only = ro.read_only_after_errors = true;
  ro.problem = MountProblem::kReadOnly;
  MountInfo nfs = ro;
  nfs.path = "/shared";
  nfs.fs_type = "nfs4";
  nfs.problem = MountProblem::kNetwork;
  MountInfo overlay_root = nfs;
  overlay_root.path = "/";
  overlay_root.problem = MountProblem::kOverlay;  // / in a container: not said
  r.snapshot.mounts = {ro, nfs, overlay_root};
  std::vector<Finding> out;
  check_mounts(r.snapshot, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, "mount.read_only");
  EXPECT_EQ(out[0].severity, Severity::kCritical);
  EXPECT_NE(out[0].title.find("after filesystem errors"), std::string::npos);
  EXPECT_EQ(out[1].id, "mount.network_or_overlay");
  EXPECT_EQ(out[1].severity, Severity::kInfo);
}

}  // namespace mount_checks_test
}  // namespace gt
