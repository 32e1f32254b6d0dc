# Intact real files (PyTorch 1.13 and NumPy, every layout and format) are
# never flagged, in quick or deep mode.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real"
for sub in torch/specforge torch/specforge-gz torch/eagle torch/speculators torch/legacy numpy; do
  for mode in "" --deep; do
    set +e
    "$TOOL" data "$REAL/$sub" $mode --json >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
    expect_rc 0
    json_check 'd["bad"] == [] and d["missing"] == [] and d["resume"] == [] and d["summary"]["ok"] + d["summary"]["ok_other"] == d["summary"]["files"] > 0' "$sub $mode intact"
  done
done
"$TOOL" data "$REAL/torch/eagle" --json > "$TMP/out"
json_check 'd["layout"] == "eagle" and d["summary"]["samples"] == 4'
"$TOOL" data "$REAL/torch/speculators" --expect 3 --json > "$TMP/out"
json_check 'd["layout"] == "speculators" and d["progress"]["samples_done"] == 3 and d["progress"]["samples_remaining"] == 0'
