# report_from_json is report_to_json's inverse (issue 20): every scenario's
# --json report, the real captures' (XML and nvidia-smi's error texts), a
# report with the record of earlier boots and one with --data, read back
# through --reports DIR (report_from_json) and printed again by the fleet
# (report_to_json), is the same document: every key, value and number
# type, in the same order. One report per folder, so no correlation across
# hosts touches it.
source "$(dirname "$0")/common.sh"

n=0
# keep: files $TMP/out as report n (after checking it is a report).
keep() {
  n=$((n + 1))
  mkdir -p "$TMP/rt/$n" "$TMP/meta/$n"
  "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == "gpu-triage/report"' \
    "$TMP/out" || fail "$1: no JSON report: $(head -c 500 "$TMP/err")"
  cp "$TMP/out" "$TMP/rt/$n/report.json"
  echo "$1" >"$TMP/meta/$n/what"
}

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  [[ -f "$dir/scenario.json" ]] || continue
  run "$dir" --json --sample 0
  keep "$(basename "$dir")"
done
run healthy-h100x8 --json --sample 0.3  # utilization over a window
keep "healthy-h100x8 sampled"

# The record of earlier boots: a second run in another boot reads it.
cp -r "$GT_SOURCE_DIR/tests/scenarios/repeat-xid79" "$TMP/boot"
for b in 1 2; do
  echo "1d0c5e2${b}-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$TMP/boot/root/proc/sys/kernel/random/boot_id"
  run "$TMP/boot" --json --sample 0 --state-dir "$TMP/state"
done
keep "repeat-xid79 with history"

# --data: a job's output with a truncated file and a gap.
mkdir -p "$TMP/job"
printf 'x%.0s' {1..64} >"$TMP/job/data_0.pt"
: >"$TMP/job/data_2.pt"
run healthy-h100x8 --json --sample 0 --data "$TMP/job"
keep "healthy-h100x8 with --data"

for f in "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/*.xml \
  "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-text/*.txt; do
  set +e
  "$TOOL" --smi-xml "$f" --json >"$TMP/out" 2>"$TMP/err"
  set -e
  keep "$(basename "$f")"
done

for ((i = 1; i <= n; i++)); do
  set +e
  "$TOOL" --reports "$TMP/rt/$i" --json >"$TMP/meta/$i/fleet.json" 2>"$TMP/err"
  set -e
done
"$PYTHON" - "$TMP" "$n" <<'PY' || fail "a report changed on its way through report_from_json"
import json, sys
root, n = sys.argv[1], int(sys.argv[2])
bad = 0
for i in range(1, n + 1):
    what = open(f"{root}/meta/{i}/what").read().strip()
    original = json.load(open(f"{root}/rt/{i}/report.json"))
    hosts = json.load(open(f"{root}/meta/{i}/fleet.json"))["hosts"]
    back = hosts[0]["report"]
    if back is None:
        print(f"{what}: not read back: {hosts[0]['error']}", file=sys.stderr)
        bad += 1
        continue
    # Same keys in the same order, same values, ints stay ints.
    a, b = json.dumps(original, indent=1), json.dumps(back, indent=1)
    if a != b:
        for k, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
            if x != y:
                print(f"{what}: line {k}: {x.strip()} != {y.strip()}", file=sys.stderr)
                break
        else:
            print(f"{what}: lengths differ", file=sys.stderr)
        bad += 1
print(f"{n} reports read back, {bad} changed", file=sys.stderr)
sys.exit(1 if bad or n < 50 else 0)
PY
