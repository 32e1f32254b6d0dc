# Mount lookups follow the path's links inside the root (issue 32): they
# matched the text of --path while statvfs followed it. On a copy of
# missing-mount, /mnt/nvme0 is in /etc/fstab but not mounted, /data2 is a
# link to /mnt/nvme0/data (absolute: the tree's /mnt, never this
# machine's), /tmp/x a link to /dev/shm (a tmpfs), and /dev/vg0/data an LVM
# volume (udev's link to ../dm-3) that /etc/fstab mounts at /mnt/lvm.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/missing-mount" "$TMP/node"
R="$TMP/node/root"
echo "/dev/nvme0n1p1 /mnt/nvme0 ext4 defaults 0 2" >>"$R/etc/fstab"
echo "/dev/vg0/data /mnt/lvm ext4 defaults 0 2" >>"$R/etc/fstab"
echo "30 22 0:26 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=65536k" \
  >>"$R/proc/self/mountinfo"
mkdir -p "$R/mnt/nvme0/data" "$R/dev/shm" "$R/tmp" "$R/mnt/etc" "$R/dev/vg0" "$R/mnt/lvm" \
  "$R/sys/class/block/dm-3/dm"
ln -s /mnt/nvme0/data "$R/data2"
ln -s /dev/shm "$R/tmp/x"
ln -s ../dm-3 "$R/dev/vg0/data"
echo 7501476528 >"$R/sys/class/block/dm-3/size"
echo vg0-data >"$R/sys/class/block/dm-3/dm/name"

# The link is judged by the mount it leads to: critical, as its target is.
run "$TMP/node" --path /data2 --json --sample 0
expect_rc 2
json_check '[m for m in d["mounts"] if m["path"] == "/data2"][0]["resolved_path"] == "/mnt/nvme0/data"'
json_check 'any(f["id"] == "mount.missing" and f["subject"]["path"] == "/data2" and "/mnt/nvme0" in f["title"] and "/data2 (resolves to /mnt/nvme0/data) is a plain directory" in f["evidence"] for f in d["findings"])' "mount.missing for the link"

# ".." leaves the mount: /mnt/nvme0/../etc is /mnt/etc, on /, nothing said
# of it; the configured mounts that are missing (/data, /mnt/nvme0,
# /mnt/lvm) are warnings of their own (issue 31), none critical.
run "$TMP/node" --path /mnt/nvme0/../etc --json --sample 0
expect_rc 1
json_check '[m for m in d["mounts"] if m["path"] == "/mnt/nvme0/../etc"][0]["resolved_path"] == "/mnt/etc"'
json_check 'not any(f["id"].startswith("mount.") and f["subject"]["path"] == "/mnt/nvme0/../etc" for f in d["findings"])'
json_check 'sorted(f["subject"]["path"] for f in d["findings"] if f["id"] == "mount.missing" and f["severity"] == "warning") == ["/data", "/mnt/lvm", "/mnt/nvme0"]'

# A link to a tmpfs is on the tmpfs, not on /.
run "$TMP/node" --path /tmp/x --json --sample 0
json_check '[(m["mount_point"], m["fs_type"]) for m in d["mounts"] if m["path"] == "/tmp/x"] == [("/dev/shm", "tmpfs")]'

# An LVM volume named by its /dev/VG/LV link is the disk present it leads
# to: the finding names dm-3, not "names no disk present".
run "$TMP/node" --path /mnt/lvm --json --sample 0
expect_rc 2
json_check '[(m["expected_device"], m["expected_source_note"]) for m in d["mounts"] if m["path"] == "/mnt/lvm"] == [("dm-3", None)]'
json_check 'any(f["id"] == "mount.missing" and "the configured source is dm-3" in f["evidence"] and "names no disk" not in f["evidence"] for f in d["findings"])'
