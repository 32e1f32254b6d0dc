# --write-manifest writes sha256sum-format lines (sha256sum -c accepts them);
# --manifest reports changed, missing and new files.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/numpy"
D="$TMP/d"; cp -r "$REAL" "$D"; chmod -R u+w "$D"
"$TOOL" data "$D" --write-manifest "$TMP/m.sha256" --algo sha256 > /dev/null
[[ "$(wc -l < "$TMP/m.sha256")" == 5 ]] || fail "5 lines"
sha256sum --quiet -c "$TMP/m.sha256" || fail "sha256sum -c rejects our manifest"
"$TOOL" data "$D" --write-manifest "$TMP/m.xxh" > /dev/null
grep -qE '^[0-9a-f]{32}  ' "$TMP/m.xxh" || fail "xxh128 by default"
"$TOOL" data "$D" --manifest "$TMP/m.xxh" --json > "$TMP/out"
json_check 'd["manifest"] == {"changed": [], "missing": [], "new": []} and d["exit_code"] == 0'
printf 'X' | dd of="$D/hidden_f16.npy" bs=1 seek=500 conv=notrunc status=none
rm "$D/ids_i64.npy"; cp "$D/fortran_f32.npy" "$D/extra.npy"
set +e
"$TOOL" data "$D" --manifest "$TMP/m.xxh" --json > "$TMP/out"; RC=$?
set -e
expect_rc 1
json_check 'd["manifest"] == {"changed": ["'"$D"'/hidden_f16.npy"], "missing": ["'"$D"'/ids_i64.npy"], "new": ["'"$D"'/extra.npy"]}'
