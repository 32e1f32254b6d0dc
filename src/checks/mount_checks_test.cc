#include <gtest/gtest.h>

#include <algorithm>

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

// Issue 48: an unreadable /etc/fstab dropped every mount check and the
// node was OK; the checks that could not run are a warning that says why.
TEST(MountChecks, AnUnreadConfigurationIsSaidNeverClean) {
  Report r = healthy_node(1);
  judge(r, {});
  ASSERT_EQ(report_verdict(r), Verdict::kOk);
  r.snapshot.mounts_unread = {"/etc/fstab: Permission denied"};
  judge(r, {});
  EXPECT_EQ(report_verdict(r), Verdict::kWarning);
  const auto f = std::find_if(r.findings.begin(), r.findings.end(),
                              [](const Finding& x) { return x.id == "mount.unread"; });
  ASSERT_NE(f, r.findings.end());
  EXPECT_EQ(f->title, "The mount checks could not run: /etc/fstab could not be read");
  EXPECT_EQ(f->evidence, "/etc/fstab: Permission denied");
  EXPECT_EQ(f->commands, std::vector<std::string>{"ls -ld /etc/fstab"});
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

// A mount the configuration asks for but that nobody asked about (no
// --path, no --data): a warning by itself, critical once a GPU process's
// command line names a path under it, and its plan identifies the disk
// before mounting when the configured UUID names no disk present.
TEST(MountChecks, AConfiguredMountIsJudgedWithoutAnyPath) {
  Report r = healthy_node(1);
  MountInfo m = missing_data();
  m.configured_only = true;
  m.expected_source_note = "UUID=9f1c names no disk present";
  m.unmounted_disks = {"nvme0n1 (3.8 TB, UUID c41e)"};
  r.snapshot.mounts = {m};
  std::vector<Finding> out;
  check_mounts(r.snapshot, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "mount.missing");
  EXPECT_EQ(out[0].severity, Severity::kWarning);
  EXPECT_NE(out[0].evidence.find("no --path, --data or GPU process command line names a path "
                                 "under /data"),
            std::string::npos)
      << out[0].evidence;

  Server sv;
  sv.kind = "SGLang";
  sv.root_pid = 3141;
  sv.root_cmdline = "python3 -m sglang.launch_server --crash-dump-folder /data/dumps";
  r.snapshot.servers = {sv};
  out.clear();
  check_mounts(r.snapshot, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kCritical);
  EXPECT_NE(out[0].evidence.find("PID 3141, the SGLang server's launcher"), std::string::npos)
      << out[0].evidence;
  // Identify, look read-only, fix the line, mount, verify: in that order.
  const std::vector<std::string> want = {"lsblk -f",
                                         "sudo blkid /dev/nvme0n1",
                                         "sudo mkdir -p /mnt/gpu-triage-check",
                                         "sudo mount -o ro /dev/nvme0n1 /mnt/gpu-triage-check",
                                         "sudo ls -la /mnt/gpu-triage-check",
                                         "sudo umount /mnt/gpu-triage-check",
                                         "sudo cp -a /etc/fstab /etc/fstab.bak",
                                         "sudo ${EDITOR:-vi} /etc/fstab",
                                         "sudo systemctl daemon-reload",
                                         "sudo mount /data",
                                         "findmnt /data",
                                         "df -h /data"};
  EXPECT_EQ(out[0].commands, want);
  EXPECT_NE(out[0].action.find("point /etc/fstab:3 at its UUID"), std::string::npos)
      << out[0].action;
}

TEST(MountChecks, AGpuProcessPathIsAWordOrAnOptionValueUnderTheMountPoint) {
  Report r = healthy_node(1);
  MountInfo m = missing_data();
  m.configured_only = true;
  r.snapshot.mounts = {m};
  auto severity_with = [&](const std::string& cmdline) {
    GpuProcess p;
    p.pid = 7;
    p.cmdline = cmdline;
    r.snapshot.gpus[0].processes = std::vector<GpuProcess>{p};
    std::vector<Finding> out;
    check_mounts(r.snapshot, out);
    return out.at(0).severity;
  };
  EXPECT_EQ(severity_with("python3 train.py --output-path=/data/run-1"), Severity::kCritical);
  EXPECT_EQ(severity_with("python3 /data/train.py"), Severity::kCritical);
  EXPECT_EQ(severity_with("python3 train.py --out /database/x"), Severity::kWarning);
  EXPECT_EQ(severity_with("python3 train.py data/x"), Severity::kWarning);  // relative: unknown
}

}  // namespace mount_checks_test
}  // namespace gt
