# scripts/real-gpu-compare.py and real-gpu-check's deadline step without a
# GPU (docs/real-gpu.md, "Without a GPU"): the comparison passes on a
# capture that matches the mock and names the field of one that does not;
# the deadline holds against the mock's hung GPU.
source "$(dirname "$0")/common.sh"

fixture="$GT_SOURCE_DIR/tests/fixtures/real-gpu-check/desktop-gpu.xml"
compare="$GT_SOURCE_DIR/scripts/real-gpu-compare.py"
run desktop-gpu --json --sample 0 --no-state
cp "$TMP/out" "$TMP/live.json"
# compare_with XML: the comparison of the mock's report with that capture.
compare_with() {
  "$TOOL" --smi-xml "$1" --json >"$TMP/smi.json" || true
  set +e
  "$PYTHON" "$compare" "$TMP/live.json" "$TMP/smi.json" >"$TMP/out"
  RC=$?
  set -e
}
compare_with "$fixture"
expect_rc 0
expect_out_contains "1 GPU(s) matched by UUID"
expect_out_contains "0 mismatch(es)"

# One value changed: the comparison fails and names it.
sed 's|<used>3360 MiB</used>|<used>4360 MiB</used>|' "$fixture" >"$TMP/changed.xml"
cmp -s "$fixture" "$TMP/changed.xml" && fail "the fixture lacks <used>3360 MiB</used>"
compare_with "$TMP/changed.xml"
expect_rc 1
expect_out_contains "MISMATCH GPU 0 (GPU-b68922ed-a971-5e35-a1d5-601344bf8190) memory.used_bytes"

# The deadline step against a GPU whose every call hangs.
set +e
"$WITH_MOCK" one-gpu-hung "$GT_SOURCE_DIR/scripts/real-gpu-check" --tool "$TOOL" --only deadline \
  --out "$TMP/rgc" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0
expect_out_contains "PASS deadline: --timeout 1s ended in"
