# Mount sanity (issue 15 item 3): /data is in /etc/fstab but not mounted, a
# plain directory on /: a critical finding names the path and the fstab
# line, and the plan mounts it first, before resuming the job.
source "$(dirname "$0")/common.sh"

run missing-mount --path /data --json --sample 0
expect_rc 2
json_check '[m["path"] for m in d["mounts"]] == ["/", "/data"]' "one mounts entry per path"
json_check 'd["mounts"][1]["problem"] == "not_mounted" and d["mounts"][1]["plain_directory"] and d["mounts"][1]["mount_point"] == "/"'
json_check 'd["mounts"][0]["fs_type"] == "ext4" and d["mounts"][0]["source"] == "/dev/vda1" and d["mounts"][0]["problem"] is None'
json_check '[f["id"] for f in d["findings"] if f["severity"] == "critical"] == ["mount.missing"]'
json_check 'any(f["id"] == "mount.missing" and f["subject"]["path"] == "/data" and "/data" in f["title"] and "/etc/fstab:3" in f["title"] and "UUID=9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40 /data ext4 defaults,nofail 0 2" in f["evidence"] and "vda1, ext4" in f["evidence"] for f in d["findings"])' "the finding names /data and its fstab line"
json_check 'd["plan"][0]["finding_ids"] == ["mount.missing"] and "before resuming the job" in d["plan"][0]["text"] and d["plan"][0]["commands"][0].endswith("mount /data")' "mounting is the plan's first step"

# Without --path /data, / alone is fine: nothing is said.
run missing-mount --json --sample 0
expect_rc 0
json_check 'not any(f["id"].startswith("mount.") for f in d["findings"])'

# A scenario without a mount table: entries with the error, no finding.
run healthy-h100x8 --path /etc --json --sample 0
expect_rc 0
json_check 'all(m["error"] is not None and m["problem"] is None for m in d["mounts"])'
