# make demo tells the story (issue 25): scripts/demo runs the story scenario
# with the job's output. Its text shows how the previous boot ended, the
# server and the unit that started it, the library/module split, the data
# volume, the job's data (intact, damaged, the exact command to resume), fits
# 100 columns, and names no fixture path.
source "$(dirname "$0")/common.sh"
set +e
TMPDIR="$TMP" "$GT_SOURCE_DIR/scripts/demo" "$TOOL" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 2  # critical: the data volume is not mounted, damaged files
expect_out_contains "previous boot ended abruptly"
expect_out_contains "storage I/O errors"
expect_out_contains "1 filesystem remounted read-only"
expect_out_contains "SGLang server TP=8"
expect_out_contains "unit sglang.service"
expect_out_contains "started 41 s after boot (auto-start)"
expect_out_contains "NVML library 565.57.01 differs from kernel module 590.48.01"
grep -q "/data is not mounted although /etc/fstab:3 mounts it" "$TMP/out" ||
  fail "the /data mount is not shown: $(cat "$TMP/out")"
expect_out_contains "3 bad files (1 empty, 1 truncated, 1 zero-filled); 37 samples intact"
job=$(sed -n 's/^\$ gpu-triage .*--data \([^ ]*\) .*/\1/p' "$TMP/out")
[[ "$job" == */run-0412 ]] || fail "no --data command line: $(head -3 "$TMP/out")"
# Commands longer than the terminal are continued with " \"; as pasted, one line.
sed -e ':a' -e '/ \\$/{N;s/ \\\n *\([^$]\)/ \1/;ba}' "$TMP/out" >"$TMP/joined"
grep -qF "gpu-triage data $job --expect 64 --deep --move-bad-to $job.bad" "$TMP/joined" ||
  fail "no exact command to move the damaged files before resuming:
$(cat "$TMP/out")"
if grep -nE '\.gt-fixture|tests/scenarios|story/root|not in the fixture' "$TMP/out" "$TMP/err"; then
  fail "a fixture path in the demo's output"
fi
awk 'length($0) > 100 { print "line " NR " is " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
  "$TMP/out" || fail "the demo does not fit 100 columns"
