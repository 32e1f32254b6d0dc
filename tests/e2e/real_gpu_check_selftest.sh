# scripts/real-gpu-check --self-test: its comparison passes on a capture
# that matches the mock, names the field of one that does not, and its
# deadline check holds against the mock's hung GPU (docs/real-gpu.md).
source "$(dirname "$0")/common.sh"

set +e
"$GT_SOURCE_DIR/scripts/real-gpu-check" --self-test --no-build --build-dir "$GT_BUILD_DIR" \
  --out "$TMP/rgc" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0
expect_out_contains "1 GPU(s) matched by UUID"
expect_out_contains "0 mismatch(es)"
expect_out_contains "self-test: comparison and deadline logic OK"
grep -q "MISMATCH GPU 0 (GPU-b68922ed-a971-5e35-a1d5-601344bf8190) memory.used_bytes" "$TMP/rgc/changed.txt" ||
  fail "the changed value: $(cat "$TMP/rgc/changed.txt")"
