# --write-manifest writes sha256sum-format lines (sha256sum -c accepts them);
# --manifest reports changed, missing and new files.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/numpy"
D="$TMP/d"; cp -r "$REAL" "$D"; chmod -R u+w "$D"
"$TOOL" data "$D" --write-manifest "$TMP/m.sha256" --algo sha256 > /dev/null
[[ "$(grep -vc '^#' "$TMP/m.sha256")" == 5 ]] || fail "5 lines"
grep -qx "# dir: $(realpath "$D")" "$TMP/m.sha256" || fail "DIR recorded: $(head -1 "$TMP/m.sha256")"
(cd "$D" && sha256sum --quiet -c "$TMP/m.sha256") || fail "sha256sum -c (run in DIR) rejects our manifest"
"$TOOL" data "$D" --write-manifest "$TMP/m.xxh" > /dev/null
grep -qE '^[0-9a-f]{32}  ' "$TMP/m.xxh" || fail "xxh128 by default"
"$TOOL" data "$D" --manifest "$TMP/m.xxh" --json > "$TMP/out"
json_check 'd["manifest"] == {"changed": [], "missing": [], "new": [], "notes": []} and d["exit_code"] == 0'
printf 'X' | dd of="$D/hidden_f16.npy" bs=1 seek=500 conv=notrunc status=none
rm "$D/ids_i64.npy"; cp "$D/fortran_f32.npy" "$D/extra.npy"
set +e
"$TOOL" data "$D" --manifest "$TMP/m.xxh" --json > "$TMP/out"; RC=$?
set -e
expect_rc 1
json_check 'd["manifest"] == {"changed": ["'"$D"'/hidden_f16.npy"], "missing": ["'"$D"'/ids_i64.npy"], "new": ["'"$D"'/extra.npy"], "notes": []}'
# Manifests name files relative to DIR (issue 14): written in one place, the
# tree verifies after `cp -a` to another path, and after a cd (typed paths differ).
E="$TMP/elsewhere/moved"; mkdir -p "$TMP/elsewhere"
cp -a "$D" "$E"
"$TOOL" data "$D" --write-manifest "$TMP/m2.xxh" > /dev/null
"$TOOL" data "$E" --manifest "$TMP/m2.xxh" --json > "$TMP/out"
json_check 'd["manifest"]["missing"] == [] and d["manifest"]["new"] == [] and d["manifest"]["changed"] == [] and d["exit_code"] == 0' "cp -a elsewhere: 0 missing, 0 new"
(cd "$TMP/elsewhere" && "$TOOL" data moved --manifest "$TMP/m2.xxh" --json) > "$TMP/out"
json_check 'd["summary"]["files"] == 5 and d["manifest"]["missing"] == [] and d["manifest"]["new"] == []' "relative DIR"
# An old manifest (paths as typed, "d/...") still verifies: the prefix is stripped, and said.
(cd "$TMP" && grep -v '^#' m2.xxh | sed 's|  |  d/|') > "$TMP/old.xxh"
"$TOOL" data "$E" --manifest "$TMP/old.xxh" --json > "$TMP/out"
json_check 'd["manifest"]["missing"] == [] and d["manifest"]["new"] == [] and "'"'"'d/'"'"'" in d["manifest"]["notes"][0]' "old manifest"
# A changed file joins the resume set and --resume-list; bad lines are noted, never fatal.
printf 'Y' | dd of="$E/fortran_f32.npy" bs=1 seek=200 conv=notrunc status=none
printf 'garbage line\n' >> "$TMP/m2.xxh"
set +e
"$TOOL" data "$E" --manifest "$TMP/m2.xxh" --layout flat --resume-list "$TMP/redo.txt" --json > "$TMP/out"; RC=$?
set -e
expect_rc 1
json_check 'd["manifest"]["changed"] == ["'"$E"'/fortran_f32.npy"] and d["summary"]["changed"] == 1' "changed"
json_check 'any("line 7: not" in n and "m2.xxh" in n for n in d["manifest"]["notes"])' "bad line noted with the manifest path"
