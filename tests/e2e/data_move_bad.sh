# --move-bad-to moves bad files out of the tree (never deletes), so a
# pipeline that skips existing files regenerates them; nothing else moves.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch"
D="$TMP/corpus"
cp -r "$REAL/speculators" "$D"; chmod -R u+w "$D"
head -c 1000 "$REAL/speculators/data_1.pt" > "$D/data_1.pt"
set +e
"$TOOL" data "$D" --move-bad-to "$D/bad" >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 64   # inside DIR: refused
[[ -f "$D/data_1.pt" ]] || fail "moved although refused"
set +e
"$TOOL" data "$D" --move-bad-to "$TMP/bad" --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 1
json_check 'd["moved"] == [{"from": "'"$D"'/data_1.pt", "to": "'"$TMP"'/bad/data_1.pt"}]'
[[ ! -e "$D/data_1.pt" && "$(stat -c %s "$TMP/bad/data_1.pt")" == 1000 ]] || fail "not moved"
[[ -f "$D/data_0.pt" && -f "$D/data_2.pt" ]] || fail "intact files moved"
# The rerun sees sample 1 as missing, the resume set is unchanged.
set +e
"$TOOL" data "$D" --expect 3 --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 1
json_check 'd["bad"] == [] and d["missing"] == [1] and d["resume"] == [1]'
# --move-bad-to on another filesystem is refused before scanning (exit 64),
# and nothing is created (issue 14).
if [[ -d /dev/shm && "$(stat -c %d /dev/shm)" != "$(stat -c %d "$TMP")" ]]; then
  set +e
  "$TOOL" data "$D" --move-bad-to /dev/shm/gt-e2e-bad-$$/x >"$TMP/out" 2>"$TMP/err"; RC=$?
  set -e
  expect_rc 64
  grep -q "is on another filesystem than $D" "$TMP/err" || fail "message: $(cat "$TMP/err")"
  [[ ! -e /dev/shm/gt-e2e-bad-$$ && ! -s "$TMP/out" ]] || fail "created or scanned although refused"
fi
# A process writing under DIR is named (read from /proc/<pid>/fd and fdinfo).
exec 3>>"$D/data_0.pt"
set +e
"$TOOL" data "$D" --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
exec 3>&-
json_check 'any("has '"$D"'/data_0.pt open for writing" in w for w in d["writers"])' "writer named"
# Stale temporary files get advice.
: > "$D/.tmpabc"
set +e
"$TOOL" data "$D" >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_out_contains "the writer died mid-write"
