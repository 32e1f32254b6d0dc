# Data lives on a volume (issue 23 item 1): --data DIR gets the mount and
# disk checks of DIR's path. On missing-mount, /etc/fstab names /data by a
# UUID that no disk present has (the old disk), and the new NVMe is there,
# unmounted: mount.missing (critical) says both, the plan's mount step is
# first, and no data finding or step resumes the job onto the bare
# directory on /.
source "$(dirname "$0")/common.sh"

run missing-mount --data /data/hidden --expect 37312 --json --sample 0
expect_rc 2
json_check '[f["id"] for f in d["findings"] if f["severity"] == "critical"] == ["mount.missing"]'
json_check 'any(f["id"] == "mount.missing" and f["subject"]["path"] == "/data/hidden" and "UUID=9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40 names no disk present" in f["evidence"] and "nvme1n1 (3.8 TB, UUID 5e0c7a41-2b9d-4f3e-8c1a-7d6e9f0b2a35)" in f["evidence"] for f in d["findings"])' "names the old UUID and the disk present"
json_check '[m for m in d["mounts"] if m["path"] == "/data/hidden"][0]["unmounted_disks"] == ["nvme1n1 (3.8 TB, UUID 5e0c7a41-2b9d-4f3e-8c1a-7d6e9f0b2a35)"]'
# The mount step first, and in working order (issue 31): the configured
# UUID names no disk present, so the disk is identified and the fstab line
# fixed before /data is mounted.
json_check 'd["plan"][0]["finding_ids"] == ["mount.missing"] and d["plan"][0]["commands"][0] == "lsblk -f"' "the mount step first, identifying the disk"
json_check '[c.removeprefix("sudo ") for c in d["plan"][0]["commands"]].index("mount /data") > [c.removeprefix("sudo ") for c in d["plan"][0]["commands"]].index("${EDITOR:-vi} /etc/fstab")' "fstab fixed before mounting"
json_check 'not any(f["id"].startswith("data.") for f in d["findings"])' "nothing judged on the bare directory"
json_check 'not any("--move-bad-to" in c or "Run from" in s["text"] for s in d["plan"] for c in s["commands"] + [""])' "no step resumes onto the unmounted path"

# --path and --data on the same mount: one finding.
run missing-mount --path /data --data /data/hidden --json --sample 0
json_check 'len([f for f in d["findings"] if f["id"] == "mount.missing"]) == 1'

# --expect N and the files disagree: nothing there, or samples beyond N.
mkdir "$TMP/empty"
run healthy-h100x8 --data "$TMP/empty" --expect 10 --json --sample 0
expect_rc 1
json_check 'any(f["id"] == "data.expect_mismatch" and "no files at all" in f["title"] for f in d["findings"]) and not any(f["id"] == "data.intact" for f in d["findings"])'
cp -r "$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge" "$TMP/sf"
find "$TMP/sf" -type f -exec touch -d '2 hours ago' {} +
run healthy-h100x8 --data "$TMP/sf" --expect 3 --json --sample 0
expect_rc 1
json_check 'any(f["id"] == "data.expect_mismatch" and "3 sample(s) have an index beyond --expect 3" in f["title"] for f in d["findings"])'
