# Every scenario's plan, pinned: each step's finding ids, GPU, text and
# commands for every scenario, real capture and real kernel-log fixture,
# against tests/golden/scenario_plans.txt (written by the tool before the
# check catalogue took over plan order and joining, issue 33: the table must
# reproduce it). A change of plan shows here as a diff to review;
# GT_UPDATE_GOLDEN=1 rewrites the file.
source "$(dirname "$0")/common.sh"

GOLDEN="$GT_SOURCE_DIR/tests/golden/scenario_plans.txt"
summarise() {  # summarise NAME: keeps the report in $TMP/out for report_all
  local n
  KEPT=$((KEPT + 1))
  n=$(printf '%03d' "$KEPT")
  cp "$TMP/out" "$TMP/kept/$n.json"
  printf '%s\t%s\n' "$1" "${RC:-0}" >"$TMP/kept/$n.name"
}
# Every kept report summarised in order by one Python (a start-up per
# report was most of this test's CPU).
report_all() {
  "$PYTHON" - "$TMP/kept" "$GT_SOURCE_DIR" <<'PY' >"$TMP/all"
import glob, json, os, re, sys
kept, src = sys.argv[1], sys.argv[2]
for path in sorted(glob.glob(os.path.join(kept, "*.json"))):
    name, rc = open(path[:-5] + ".name").read().rstrip("\n").split("\t")
    d = json.load(open(path))
    for n, p in enumerate(d.get("plan", []), 1):
        # The mock's temporary folder changes from run to run.
        fix = lambda t: re.sub(r"/tmp/with-mock\.[A-Za-z0-9]+", "MOCK", t.replace(src, "SRC"))
        print(fix(f"{name}\t{n}\t{','.join(p.get('finding_ids', []))}\t{p.get('gpu') or ''}\t{p['text']}"))
        for c in p.get("commands", []):
            print(fix(f"{name}\t{n}\t$ {c}"))
PY
}
KEPT=0
mkdir -p "$TMP/kept"

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 400ms --no-state
  summarise "scenario/$s"
done
for xml in "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/*.xml; do
  "$TOOL" --smi-xml "$xml" --json >"$TMP/out" 2>/dev/null || true
  summarise "capture/$(basename "$xml")"
done
for log in "$GT_SOURCE_DIR"/tests/fixtures/real/kernel-log/*.log; do
  run healthy-h100x8 --json --sample 0 --no-state --kernel-log "$log"
  summarise "kernel-log/$(basename "$log")"
done

report_all
(($(wc -l <"$TMP/all") > 100)) || fail "too few plan lines: $(wc -l <"$TMP/all")"
if [[ -n "${GT_UPDATE_GOLDEN:-}" ]]; then
  cp "$TMP/all" "$GOLDEN"
  echo "rewrote $GOLDEN"
  exit 0
fi
[[ -f "$GOLDEN" ]] || fail "$GOLDEN is missing (GT_UPDATE_GOLDEN=1 writes it)"
diff -u "$GOLDEN" "$TMP/all" || fail "a plan changed: review the diff, then GT_UPDATE_GOLDEN=1"
echo ok
