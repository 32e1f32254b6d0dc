# Mount sanity (issue 15 item 3, issue 31 item 1): /data is in /etc/fstab
# but not mounted, a plain directory on /: a finding names the path and the
# fstab line (critical with --path under it), and the plan mounts it first,
# before resuming the job.
source "$(dirname "$0")/common.sh"

run missing-mount --path /data --json --sample 0
expect_rc 2
json_check '[m["path"] for m in d["mounts"]] == ["/", "/data"]' "one mounts entry per path"
json_check 'd["mounts"][1]["problem"] == "not_mounted" and d["mounts"][1]["plain_directory"] and d["mounts"][1]["mount_point"] == "/"'
json_check 'd["mounts"][0]["fs_type"] == "ext4" and d["mounts"][0]["source"] == "/dev/vda1" and d["mounts"][0]["problem"] is None'
json_check '[f["id"] for f in d["findings"] if f["severity"] == "critical"] == ["mount.missing"]'
json_check 'any(f["id"] == "mount.missing" and f["subject"]["path"] == "/data" and "/data" in f["title"] and "/etc/fstab:3" in f["title"] and "UUID=9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40 /data ext4 defaults,nofail 0 2" in f["evidence"] and "vda1, ext4" in f["evidence"] for f in d["findings"])' "the finding names /data and its fstab line"
json_check 'd["plan"][0]["finding_ids"] == ["mount.missing"] and "before resuming the job" in d["plan"][0]["text"] and any(c.endswith("mount /data") for c in d["plan"][0]["commands"])' "mounting is the plan's first step"

# Without --path /data (issue 31): every mount fstab asks for at boot is
# judged. Nothing on the GPUs lives under /data here: a warning, the same
# finding, and an entry for /data marked configured_only.
run missing-mount --json --sample 0
expect_rc 1
json_check '[m["path"] for m in d["mounts"]] == ["/", "/data"] and d["mounts"][1]["configured_only"] and not d["mounts"][0]["configured_only"]'
json_check '[(f["id"], f["severity"]) for f in d["findings"] if f["id"].startswith("mount.")] == [("mount.missing", "warning")]'
json_check 'any(f["id"] == "mount.missing" and "no --path, --data or GPU process command line names a path under /data" in f["evidence"] for f in d["findings"])'

# A GPU server that names a path under the missing mount (SGLang's
# --crash-dump-folder under /data, issue 31): critical, and the first step
# of the plan, which identifies the new disk, looks at it read-only and
# fixes the fstab line before it mounts /data (the line's UUID names no disk
# present). The story's node before /data was migrated: its new NVMe not
# mounted and fstab naming the old disk.
cp -a "$GT_SOURCE_DIR/tests/scenarios/story" "$TMP/unmounted"
sed -i '\# /data #d' "$TMP/unmounted/root/proc/self/mountinfo"
sed -i 's#^UUID=[-0-9a-f]* /data #UUID=9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40 /data #' "$TMP/unmounted/root/etc/fstab"
run "$TMP/unmounted" --json --sample 0
expect_rc 2
json_check 'd["plan"][0]["finding_ids"] == ["mount.missing"]' "the mount is the first step"
json_check 'any(f["id"] == "mount.missing" and f["severity"] == "critical" and "PID 3141" in f["evidence"] and "/data/sglang/crash-dumps" in f["evidence"] for f in d["findings"])' "critical: a GPU server names /data"
"$PYTHON" - "$TMP/out" <<'PY' || fail "the mount step is out of order"
import json, sys
cmds = [c.removeprefix("sudo ") for c in json.load(open(sys.argv[1]))["plan"][0]["commands"]]
order = ["lsblk -f", "blkid /dev/nvme0n1", "mount -o ro /dev/nvme0n1 /mnt/gpu-triage-check",
         "ls -la /mnt/gpu-triage-check", "umount /mnt/gpu-triage-check", "${EDITOR:-vi} /etc/fstab",
         "mount /data", "findmnt /data"]
at = [cmds.index(c) for c in order]
assert at == sorted(at), cmds
assert cmds.index("mount /data") > cmds.index("${EDITOR:-vi} /etc/fstab"), cmds
PY

# A scenario without a mount table: entries with the error, no finding.
run healthy-h100x8 --path /etc --json --sample 0
expect_rc 0
json_check 'all(m["error"] is not None and m["problem"] is None for m in d["mounts"])'
