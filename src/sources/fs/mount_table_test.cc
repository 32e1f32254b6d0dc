#include "sources/fs/mount_table.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace mount_table_test {

constexpr const char* kMountinfo =
    "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
    "30 22 259:3 / /scratch\\040space rw,relatime shared:5 - xfs /dev/nvme0n1p1 rw\n"
    "31 22 259:4 / /ckpt rw,relatime shared:6 - ext4 /dev/nvme2n1 ro,errors=remount-ro\n"
    "32 22 0:50 / /shared rw,relatime shared:7 - nfs4 filer:/export rw,vers=4.2\n"
    "garbage line\n";

TEST(Mounts, ParsesMountinfoWithEscapesAndOptionalFields) {
  std::vector<MountEntry> m = parse_mountinfo(kMountinfo);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[1].mount_point, "/scratch space");
  EXPECT_EQ(m[1].fs_type, "xfs");
  EXPECT_EQ(m[1].source, "/dev/nvme0n1p1");
  EXPECT_EQ(m[2].super_options, "ro,errors=remount-ro");
  EXPECT_EQ(m[3].source, "filer:/export");
}

TEST(Mounts, FstabSkipsCommentsSwapAndKeepsTheLine) {
  std::vector<ExpectedMount> e = parse_fstab(
      "# /etc/fstab\n\nUUID=abc / ext4 errors=remount-ro 0 1\nUUID=def none swap sw 0 0\n"
      "LABEL=data /data/ ext4 defaults,nofail 0 2\n");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1].where, "/data");
  EXPECT_EQ(e[1].what, "LABEL=data");
  EXPECT_EQ(e[1].origin, "/etc/fstab:5: LABEL=data /data/ ext4 defaults,nofail 0 2");
}

TEST(Mounts, MountUnitNeedsWhere) {
  std::optional<ExpectedMount> u = parse_mount_unit(
      "[Unit]\nWhere=/wrong\n[Mount]\nWhat=/dev/nvme1n1p1\nWhere=/models\nType=xfs\n", "f");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->where, "/models");
  EXPECT_EQ(u->type, "xfs");
  EXPECT_FALSE(parse_mount_unit("[Mount]\nWhat=/dev/x\n", "f"));
}

TEST(Mounts, PathUnderIsByComponent) {
  EXPECT_TRUE(path_under("/data/x", "/data"));
  EXPECT_TRUE(path_under("/data", "/data"));
  EXPECT_FALSE(path_under("/database", "/data"));
  EXPECT_TRUE(path_under("/anything", "/"));
}

DiskUsage disk(const std::string& path) {
  DiskUsage d;
  d.path = path;
  d.total_bytes = 1000;
  d.available_bytes = 980;
  return d;
}

TEST(Mounts, FstabMountMissingLeavesAPlainDirectory) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/fstab", "UUID=abc / ext4 defaults 0 1\n/dev/nvme1n1p1 /data ext4 defaults 0 2\n");
  t.write("/data/ckpt/x", "1");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/"), disk("/data/ckpt")});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_FALSE(m[0].problem);
  EXPECT_EQ(m[1].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[1].mount_point, "/");  // it is on / instead
  EXPECT_EQ(m[1].expected_mount_point, "/data");
  EXPECT_EQ(m[1].expected_by, "/etc/fstab:2: /dev/nvme1n1p1 /data ext4 defaults 0 2");
  EXPECT_EQ(m[1].plain_directory, true);
  EXPECT_EQ(m[1].total_bytes, 1000u);
}

TEST(Mounts, MountedAsConfiguredIsNoProblem) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/fstab", "/dev/nvme0n1p1 /scratch\\040space xfs defaults 0 2\n");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/scratch space/run")});
  EXPECT_EQ(m[0].mount_point, "/scratch space");
  EXPECT_FALSE(m[0].problem);
  EXPECT_EQ(m[0].read_only, false);
}

TEST(Mounts, SuperblockReadOnlyIsReadOnlyAfterErrors) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/ckpt"), disk("/shared/x")});
  EXPECT_EQ(m[0].problem, MountProblem::kReadOnly);
  EXPECT_EQ(m[0].read_only_after_errors, true);
  EXPECT_EQ(m[1].problem, MountProblem::kNetwork);
  EXPECT_EQ(m[1].fs_type, "nfs4");
}

TEST(Mounts, SystemdUnitExpectsAMount) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/systemd/system/models.mount", "[Mount]\nWhat=/dev/sdb1\nWhere=/models\n");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/models")});
  EXPECT_EQ(m[0].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[0].plain_directory, false);  // not even there
  EXPECT_NE(m[0].expected_by->find("models.mount"), std::string::npos);
}

// Every mount asked for at boot is inspected, whether a path was given
// under it or not: /data missing, /ckpt read-only although configured rw,
// /scratch space as configured; a noauto line is left to the hand that
// mounts it, and a mount a path was given under is inspected once.
TEST(Mounts, EveryConfiguredMountIsInspectedWithoutAPath) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/fstab",
          "UUID=abc / ext4 defaults 0 1\n/dev/nvme1n1p1 /data ext4 defaults,nofail 0 2\n"
          "/dev/nvme2n1 /ckpt ext4 defaults 0 2\n"
          "/dev/nvme0n1p1 /scratch\\040space xfs defaults 0 2\n"
          "/dev/sdz1 /manual ext4 noauto 0 0\n");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/"), disk("/scratch space/run")});
  ASSERT_EQ(m.size(), 4u);
  EXPECT_FALSE(m[0].configured_only);
  EXPECT_FALSE(m[1].configured_only);
  EXPECT_EQ(m[2].path, "/data");
  EXPECT_TRUE(m[2].configured_only);
  EXPECT_EQ(m[2].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[2].total_bytes, 1000u);  // the figures of /, which holds it now
  EXPECT_EQ(m[3].path, "/ckpt");
  EXPECT_EQ(m[3].problem, MountProblem::kReadOnly);
}

// Issue 48: a .mount unit file alone is not started at boot (systemd.unit(5):
// something must want it, a link in a *.wants/ or *.requires/ folder, as
// `systemctl enable` makes for its WantedBy=); a unit nothing wants is not
// judged as a mount the node asks for.
TEST(Mounts, AMountUnitIsAskedForAtBootOnlyWhenSomethingWantsIt) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/systemd/system/models.mount", "[Mount]\nWhat=/dev/sdb1\nWhere=/models\n");
  t.write("/etc/systemd/system/multi-user.target.wants/sglang.service", "");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/")});
  ASSERT_EQ(m.size(), 1u);  // not inspected: nothing starts it
  m = read_mounts(t.root(), {disk("/models/x")});
  EXPECT_EQ(m[0].expected_noauto, true);
  EXPECT_NE(m[0].expected_by->find("not started at boot"), std::string::npos);
  t.symlink("/etc/systemd/system/models.mount",
            "/etc/systemd/system/local-fs.target.wants/models.mount");
  m = read_mounts(t.root(), {disk("/")});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(m[1].configured_only);
  EXPECT_EQ(m[1].path, "/models");
  EXPECT_EQ(m[1].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[1].expected_noauto, false);
}

// Issue 48: an /etc/fstab that cannot be read dropped every mount check
// without a word; a missing one (a container) is no error.
TEST(Mounts, WhatCouldNotBeReadIsSaidAndAMissingFileIsNot) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  std::vector<std::string> unread;
  read_mounts(t.root(), {disk("/")}, &unread);
  EXPECT_TRUE(unread.empty());
  t.write("/etc/fstab/not-a-file", "");  // a folder: reading it fails
  t.write("/etc/systemd/system/data.mount/x", "");
  read_mounts(t.root(), {disk("/")}, &unread);
  ASSERT_EQ(unread.size(), 2u);
  EXPECT_TRUE(unread[0].starts_with("/etc/fstab: ")) << unread[0];
  EXPECT_TRUE(unread[1].starts_with("/etc/systemd/system/data.mount: ")) << unread[1];
  TempTree no_table;
  read_mounts(no_table.root(), {disk("/")}, &unread);
  EXPECT_TRUE(unread.empty());  // a tree without /proc: each path's error says so
  no_table.write("/proc/self/mountinfo/x", "");
  read_mounts(no_table.root(), {disk("/")}, &unread);
  ASSERT_EQ(unread.size(), 1u);
  EXPECT_TRUE(unread[0].starts_with("/proc/self/mountinfo: ")) << unread[0];
}

TEST(Mounts, NoMountTableIsAnErrorPerPath) {
  TempTree t;
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/")});
  ASSERT_TRUE(m[0].error);
  EXPECT_FALSE(m[0].problem);
}

// Issue 32: the lookups matched the text of --path while statvfs followed
// its links, so the mount check judged another path than the one written.
constexpr const char* kNvmeFstab =
    "UUID=abc / ext4 defaults 0 1\n/dev/nvme1n1p1 /mnt/nvme0 ext4 defaults,nofail 0 2\n";

TEST(Mounts, ALinkedPathIsJudgedByTheMountItLeadsTo) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/fstab", kNvmeFstab);
  t.write("/mnt/nvme0/data/x", "1");
  t.symlink("/mnt/nvme0/data", "/data");  // absolute: the tree's /mnt
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/data"), disk("/mnt/nvme0/data")});
  ASSERT_EQ(m.size(), 3u);  // and fstab's "/", checked as configured: mounted, no problem
  EXPECT_EQ(m[2].path, "/");
  EXPECT_TRUE(m[2].configured_only);
  EXPECT_FALSE(m[2].problem);
  EXPECT_EQ(m[0].resolved_path, "/mnt/nvme0/data");
  EXPECT_EQ(m[0].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[0].expected_mount_point, "/mnt/nvme0");
  EXPECT_EQ(m[0].plain_directory, true);
  EXPECT_EQ(m[0].path, "/data");  // as given
  EXPECT_EQ(m[1].problem, MountProblem::kNotMounted);
}

TEST(Mounts, AConfiguredMountPointThatIsALinkIsWhereItLeads) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/fstab", "/dev/nvme1n1p1 /data ext4 defaults 0 2\n");
  t.write("/mnt/nvme0/ckpt/x", "1");
  t.symlink("mnt/nvme0", "/data");  // mount(8) mounts at /mnt/nvme0
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/mnt/nvme0/ckpt"), disk("/data/ckpt")});
  EXPECT_EQ(m[0].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[0].expected_mount_point, "/mnt/nvme0");
  EXPECT_EQ(m[1].problem, MountProblem::kNotMounted);
}

TEST(Mounts, DotDotLeavesTheMount) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.write("/etc/fstab", kNvmeFstab);
  t.write("/mnt/nvme0/.keep", "");
  t.write("/mnt/etc/hosts", "");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/mnt/nvme0/../etc")});
  EXPECT_EQ(m[0].resolved_path, "/mnt/etc");
  EXPECT_FALSE(m[0].problem);
  EXPECT_EQ(m[0].expected_mount_point, "/");  // not /mnt/nvme0
  EXPECT_EQ(m[0].mount_point, "/");
}

TEST(Mounts, ALinkToTmpfsNamesTheTmpfs) {
  TempTree t;
  t.write("/proc/self/mountinfo",
          std::string(kMountinfo) +
              "40 22 0:26 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=65536k\n");
  t.write("/dev/shm/.keep", "");
  t.symlink("/dev/shm", "/tmp/x");
  t.symlink("../../dev/shm", "/tmp/y");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/tmp/x"), disk("/tmp/y/sub")});
  EXPECT_EQ(m[0].mount_point, "/dev/shm");
  EXPECT_EQ(m[0].fs_type, "tmpfs");
  EXPECT_EQ(m[1].mount_point, "/dev/shm");
  EXPECT_EQ(m[1].resolved_path, "/dev/shm/sub");
}

TEST(Mounts, AnUnresolvablePathIsAnErrorNotAMount) {
  TempTree t;
  t.write("/proc/self/mountinfo", kMountinfo);
  t.symlink("/b", "/a");
  t.symlink("/a", "/b");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/a/x"), disk("relative")});
  ASSERT_TRUE(m[0].error);
  EXPECT_NE(m[0].error->find("too many levels of symbolic links"), std::string::npos);
  EXPECT_FALSE(m[0].mount_point);
  ASSERT_TRUE(m[1].error);  // this machine's path, not the tree's
  EXPECT_FALSE(m[1].mount_point);
}

}  // namespace mount_table_test
}  // namespace gt
