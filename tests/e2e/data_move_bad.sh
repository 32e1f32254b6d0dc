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
