# gpu-triage data: a file it cannot fully check (an object array here; an
# unmodelled pickle opcode, a dtype of unknown size) is "unverifiable":
# never called intact, not bad either (not moved, not redone), exit 1.
source "$(dirname "$0")/common.sh"
REG="$GT_SOURCE_DIR/tests/fuzz/regressions/npy"
D="$TMP/d"; mkdir -p "$D"
cp "$GT_SOURCE_DIR/tests/fixtures/real/numpy/ids_i64.npy" "$D/sample_0.npy"
cp "$REG/npy-object-array.bin" "$D/sample_1.npy"
cp "$REG/npy-descr-unknown-kind.bin" "$D/sample_2.npy"
run_data() {
  set +e
  "$TOOL" data "$D" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}
run_data --json
expect_rc 1
json_check 'd["summary"]["ok"] == 1 and d["summary"]["bad"] == 1 and d["summary"]["unverifiable"] == 1'
json_check 'd["unverifiable"][0]["path"].endswith("/sample_1.npy") and d["unverifiable"][0]["index"] == 1 and "object array" in d["unverifiable"][0]["reason"]'
json_check 'd["bad"][0]["path"].endswith("/sample_2.npy") and d["bad"][0]["problem"] == "malformed"'
json_check 'd["resume"] == [2] and d["missing"] == []'
run_data
expect_rc 1
head -1 "$TMP/out" | grep -q "^WARNING data: 3 files, 1 intact, 1 bad, 1 unverifiable, 0 missing" || fail "summary: $(head -1 "$TMP/out")"
expect_out_contains "Unverifiable, neither intact nor bad (1):"
expect_out_contains "$D/sample_1.npy: object array (|O): a pickle of no fixed size"
run_data -0
[[ "$(tr '\0' '\n' < "$TMP/out")" == "$D/sample_2.npy" ]] || fail "-0 lists only the bad file: $(tr '\0' ' ' < "$TMP/out")"
