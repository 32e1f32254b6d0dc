#include "sources/fs/block_devices.h"

#include <gtest/gtest.h>

#include "sources/fs/mount_table.h"
#include "util/test_util.h"

namespace gt {
namespace block_devices_test {

using K = SourceResolution::Kind;

/// vda (partitioned, vda1 holds /), a new unformatted-by-label NVMe, a
/// loop device; udev links for vda1's and the NVMe's filesystems.
void node(const TempTree& t) {
  t.write("/sys/class/block/vda/size", "83886080\n");
  t.write("/sys/class/block/vda/vda1/size", "83884032\n");
  t.write("/sys/class/block/vda/vda1/partition", "1\n");
  t.symlink("vda/vda1", "/sys/class/block/vda1");
  t.write("/sys/class/block/nvme1n1/size", "7501476528\n");
  t.write("/sys/class/block/loop0/size", "100\n");
  t.symlink("../../vda1", "/dev/disk/by-uuid/aaaa");
  t.symlink("../../nvme1n1", "/dev/disk/by-uuid/bbbb");
  t.symlink("../../nvme1n1", "/dev/disk/by-label/my\\x20data");
  t.symlink("../../vda1", "/dev/disk/by-partuuid/cccc-01");
}

TEST(BlockDevices, ReadsSysfsAndUdevLinks) {
  TempTree t;
  node(t);
  BlockDevices d = read_block_devices(t.root());
  ASSERT_EQ(d.devices.size(), 3u);  // loop0 ignored
  EXPECT_TRUE(d.notes.empty());
  EXPECT_EQ(d.devices[0].name, "nvme1n1");
  EXPECT_EQ(d.devices[0].size_bytes, 7501476528ull * 512);
  EXPECT_EQ(d.devices[0].labels, std::vector<std::string>{"my data"});
  EXPECT_TRUE(d.devices[1].has_partitions);  // vda
  EXPECT_TRUE(d.devices[2].partition);       // vda1
  EXPECT_EQ(describe_device(d.devices[0]), "nvme1n1 (3.8 TB, UUID bbbb, LABEL my data)");
}

TEST(BlockDevices, ResolvesEveryFstabForm) {
  TempTree t;
  node(t);
  FsRoot r = t.root();
  BlockDevices d = read_block_devices(r);
  EXPECT_EQ(resolve_source(r, d, "UUID=aaaa").device, "vda1");
  EXPECT_EQ(resolve_source(r, d, "UUID=\"bbbb\"").device, "nvme1n1");
  EXPECT_EQ(resolve_source(r, d, "LABEL=my data").device, "nvme1n1");
  EXPECT_EQ(resolve_source(r, d, "PARTUUID=cccc-01").device, "vda1");
  EXPECT_EQ(resolve_source(r, d, "/dev/disk/by-uuid/aaaa").device, "vda1");
  EXPECT_EQ(resolve_source(r, d, "/dev/nvme1n1").device, "nvme1n1");
  EXPECT_EQ(resolve_source(r, d, "UUID=old-disk").kind, K::kAbsent);
  EXPECT_EQ(resolve_source(r, d, "/dev/sdz1").kind, K::kAbsent);
  EXPECT_EQ(resolve_source(r, d, "filer:/export").kind, K::kNotADisk);
  EXPECT_EQ(resolve_source(r, d, "ID=whatever").kind, K::kUnknownForm);
}

TEST(BlockDevices, NoDevDiskTreeIsANoteNotAnAbsence) {
  TempTree t;
  t.write("/sys/class/block/nvme1n1/size", "100\n");
  FsRoot r = t.root();
  BlockDevices d = read_block_devices(r);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("/dev/disk/by-uuid"), std::string::npos);
  EXPECT_EQ(resolve_source(r, d, "UUID=aaaa").kind, K::kUnknown);
  TempTree empty;
  BlockDevices none = read_block_devices(empty.root());
  EXPECT_EQ(none.notes.size(), 1u);  // no sysfs: nothing to resolve against
  EXPECT_EQ(resolve_source(empty.root(), none, "UUID=aaaa").kind, K::kUnknown);
  EXPECT_TRUE(none.devices.empty());
}

DiskUsage disk(const std::string& path) {
  DiskUsage d;
  d.path = path;
  return d;
}

TEST(BlockDevices, MissingMountNamesTheUnmountedDisk) {
  TempTree t;
  node(t);
  t.write("/proc/self/mountinfo", "22 1 252:1 / / rw - ext4 /dev/vda1 rw\n");
  t.write("/etc/fstab", "UUID=aaaa / ext4 defaults 0 1\nUUID=old-disk /data ext4 nofail 0 2\n");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/data/hidden")});
  EXPECT_EQ(m[0].problem, MountProblem::kNotMounted);
  EXPECT_FALSE(m[0].expected_device);
  EXPECT_EQ(m[0].expected_source_note, "UUID=old-disk names no disk present");
  EXPECT_EQ(m[0].unmounted_disks,
            std::vector<std::string>{"nvme1n1 (3.8 TB, UUID bbbb, LABEL my data)"});
}

TEST(BlockDevices, AnotherDiskMountedWhereTheConfigurationSaysIsWrongDevice) {
  TempTree t;
  node(t);
  t.write("/proc/self/mountinfo",
          "22 1 252:1 / / rw - ext4 /dev/nvme1n1 rw\n23 22 252:2 / /data rw - ext4 /dev/vda1 rw\n");
  t.write("/etc/fstab", "UUID=bbbb /data ext4 defaults 0 2\n");
  std::vector<MountInfo> m = read_mounts(t.root(), {disk("/data")});
  EXPECT_EQ(m[0].problem, MountProblem::kWrongDevice);
  EXPECT_EQ(m[0].expected_device, "nvme1n1");
  EXPECT_EQ(m[0].mounted_device, "vda1");
  // As configured: no problem; an unknown source form is said, not guessed.
  t.write("/etc/fstab", "UUID=aaaa /data ext4 defaults 0 2\n");
  EXPECT_FALSE(read_mounts(t.root(), {disk("/data")})[0].problem);
  t.write("/etc/fstab", "SERIAL=x /data ext4 defaults 0 2\n");
  m = read_mounts(t.root(), {disk("/data")});
  EXPECT_FALSE(m[0].problem);
  EXPECT_NE(m[0].expected_source_note->find("not a form mount(8) knows"), std::string::npos);
}

/// An LVM volume (dm-3, /dev/vg0/data) and an md RAID0 of two NVMe drives
/// (md127, /dev/md/scratch), with udev's links as udev makes them.
void lvm_and_md(const TempTree& t) {
  t.write("/sys/class/block/dm-3/size", "7501476528\n");
  t.write("/sys/class/block/dm-3/dm/name", "vg0-data\n");
  t.write("/sys/class/block/md127/size", "15002953056\n");
  for (const char* d : {"nvme2n1", "nvme3n1"}) {
    t.write(std::string("/sys/class/block/") + d + "/size", "7501476528\n");
    t.write(std::string("/sys/class/block/") + d + "/holders/md127", "");
  }
  t.symlink("../dm-3", "/dev/vg0/data");
  t.symlink("../dm-3", "/dev/mapper/vg0-data");
  t.symlink("../md127", "/dev/md/scratch");
  t.symlink("../../dm-3", "/dev/disk/by-uuid/dddd");
}

// Issue 32: /dev/VG/LV and /dev/md/NAME (udev links to ../dm-N, ../mdN)
// were taken as kernel names "vg0/data", "md/scratch": "names no disk
// present" for the usual forms of a data volume.
TEST(BlockDevices, LvmAndMdPathsAreUdevLinks) {
  TempTree t;
  node(t);
  lvm_and_md(t);
  FsRoot r = t.root();
  BlockDevices d = read_block_devices(r);
  EXPECT_EQ(resolve_source(r, d, "/dev/vg0/data").device, "dm-3");
  EXPECT_EQ(resolve_source(r, d, "/dev/md/scratch").device, "md127");
  EXPECT_EQ(resolve_source(r, d, "/dev/mapper/vg0-data").device, "dm-3");
  EXPECT_EQ(device_of_mount_source(r, d, "/dev/md/scratch"), "md127");
  EXPECT_EQ(device_of_mount_source(r, d, "/dev/md127"), "md127");
  // A volume group not activated: no link, the udev tree there: absent.
  EXPECT_EQ(resolve_source(r, d, "/dev/vg1/data").kind, K::kAbsent);
  // A link that leads out of /dev names no device.
  t.symlink("../../etc", "/dev/vg0/escape");
  EXPECT_EQ(resolve_source(r, d, "/dev/vg0/escape").kind, K::kAbsent);

  t.write("/proc/self/mountinfo",
          "22 1 252:1 / / rw - ext4 /dev/vda1 rw\n"
          "23 22 253:3 / /data rw - ext4 /dev/mapper/vg0-data rw\n");
  t.write("/etc/fstab",
          "/dev/vg0/data /data ext4 defaults 0 2\n/dev/md/scratch /scratch xfs defaults 0 2\n");
  std::vector<MountInfo> m = read_mounts(r, {disk("/data"), disk("/scratch")});
  EXPECT_FALSE(m[0].problem);  // mounted as configured: the same dm-3
  EXPECT_EQ(m[0].expected_device, "dm-3");
  EXPECT_EQ(m[0].mounted_device, "dm-3");
  EXPECT_FALSE(m[0].expected_source_note);
  EXPECT_EQ(m[1].problem, MountProblem::kNotMounted);
  EXPECT_EQ(m[1].expected_device, "md127");
  EXPECT_FALSE(m[1].expected_source_note);
}

TEST(BlockDevices, LvmPathWithoutTheUdevTreeIsUnknown) {
  TempTree t;
  t.write("/sys/class/block/dm-3/size", "100\n");
  t.write("/sys/class/block/dm-3/dm/name", "vg0-data\n");
  FsRoot r = t.root();
  BlockDevices d = read_block_devices(r);
  EXPECT_EQ(resolve_source(r, d, "/dev/vg0/data").kind, K::kUnknown);
  EXPECT_EQ(resolve_source(r, d, "/dev/md/scratch").kind, K::kUnknown);
  EXPECT_EQ(resolve_source(r, d, "/dev/mapper/vg0-data").device, "dm-3");  // sysfs says
  EXPECT_EQ(resolve_source(r, d, "/dev/mapper/gone").kind, K::kAbsent);
}

}  // namespace block_devices_test
}  // namespace gt
