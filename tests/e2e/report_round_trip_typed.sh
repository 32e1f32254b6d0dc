# report_from_json(report_to_json(r)) == r, typed (issue 20): for every
# scenario (through the mock NVML), a report with the record of earlier
# boots, one with --data, and every real capture (XML and nvidia-smi's error
# texts), gt_report_round_trip builds the Report as the triage command does
# (parse_args, collect_report) and compares it with what report_from_json
# reads back from report_to_json, with Report's operator==. Only the
# exceptions json_report_read.h documents are normalized (the program names
# them); without them a capture fails, naming snapshot.nvml.
source "$(dirname "$0")/common.sh"

RT="$GT_BUILD_DIR/gt_report_round_trip"
[[ -x "$RT" ]] || fail "$RT not built"
n=0
bad=0
# check WHAT COMMAND...: runs one round trip; counts it, and a failure.
check() {
  local what="$1"
  shift
  n=$((n + 1))
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  set -e
  if [[ "$rc" != 0 ]]; then
    echo "$what: rc $rc: $(grep report_round_trip "$TMP/err" || tail -c 500 "$TMP/err")" >&2
    bad=$((bad + 1))
  fi
}

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  [[ -f "$dir/scenario.json" ]] || continue
  check "$(basename "$dir")" "$WITH_MOCK" "$dir" "$RT" --sample 0
done
check "healthy-h100x8 sampled" "$WITH_MOCK" healthy-h100x8 "$RT" --sample 0.3

# The record of earlier boots: the tool records two boots, the round trip
# reads the record in a third.
cp -r "$GT_SOURCE_DIR/tests/scenarios/repeat-xid79" "$TMP/boot"
for b in 1 2 3; do
  echo "1d0c5e2${b}-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$TMP/boot/root/proc/sys/kernel/random/boot_id"
  [[ $b == 3 ]] || run "$TMP/boot" --json --sample 0 --state-dir "$TMP/state"
done
check "repeat-xid79 with history" "$WITH_MOCK" "$TMP/boot" "$RT" --sample 0 --state-dir "$TMP/state"
# The journal's previous boot (history.previous_boot_id and its first entry).
check "story with history" "$WITH_MOCK" story "$RT" --sample 0 --state-dir "$TMP/state2"

# --data with --expect: a truncated file, a gap, samples beyond the range.
mkdir -p "$TMP/job"
printf 'x%.0s' {1..64} >"$TMP/job/data_0.pt"
: >"$TMP/job/data_2.pt"
: >"$TMP/job/data_9.pt"
check "healthy-h100x8 with --data" "$WITH_MOCK" healthy-h100x8 "$RT" --sample 0 \
  --data "$TMP/job" --expect 4

for f in "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/*.xml \
  "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-text/*.txt; do
  check "$(basename "$f")" "$RT" --smi-xml "$f"
done
echo "$n reports built and read back, $bad differed" >&2
[[ $bad == 0 ]] || fail "$bad reports changed on their way through report_from_json"
((n >= 50)) || fail "only $n reports checked"

# The test can fail: without the documented exceptions, a capture's NVML
# flags (null in the JSON) come back false and the program names them.
xml=$(ls "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/*.xml | head -1)
set +e
"$RT" --no-normalize --smi-xml "$xml" >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
[[ $rc == 1 ]] || fail "--no-normalize on a capture: rc $rc, want 1: $(cat "$TMP/err")"
grep -q "first difference in snapshot.nvml$" "$TMP/err" || fail "no member named: $(cat "$TMP/err")"
