# Every --path has its own entry and line, also on the filesystem of `/`
# (issue 12): JSON disks[] in the order given, the table a line per path
# with free space and inodes even when all is fine.
source "$(dirname "$0")/common.sh"

# Under --root, "/" and "/etc" are the scenario tree's: one filesystem.
run healthy-h100x8 --path /etc --path /nonexistent --json --sample 0
json_check '[x["path"] for x in d["disks"]] == ["/", "/etc", "/nonexistent"]' "one entry per path"
json_check 'd["disks"][1]["same_filesystem_as"] == "/" and d["disks"][1]["available_bytes"] == d["disks"][0]["available_bytes"]'
json_check 'd["disks"][0]["same_filesystem_as"] is None and d["disks"][2]["error"] is not None'

run healthy-h100x8 --path /etc --sample 0 --no-color
grep -qE '^  /     .* GiB of .* GiB free \([0-9]+%\), .* inodes free' "$TMP/out" || fail "/ line: $(cat "$TMP/out")"
grep -qE '^  /etc  .* free .*; filesystem of /$' "$TMP/out" || fail "/etc line: $(cat "$TMP/out")"
