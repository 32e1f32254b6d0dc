# Every scenario's plan, pinned: each step's finding ids, GPU, text and
# commands for every scenario, real capture and real kernel-log fixture,
# against tests/golden/scenario_plans.txt (written by the tool before the
# check catalogue took over plan order and joining, issue 33: the table must
# reproduce it). A change of plan shows here as a diff to review;
# GT_UPDATE_GOLDEN=1 rewrites the file.
source "$(dirname "$0")/common.sh"

GOLDEN="$GT_SOURCE_DIR/tests/golden/scenario_plans.txt"

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 400ms --no-state
  keep_report "scenario/$s"
done
for xml in "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/*.xml; do
  "$TOOL" --smi-xml "$xml" --json >"$TMP/out" 2>/dev/null || true
  keep_report "capture/$(basename "$xml")"
done
for log in "$GT_SOURCE_DIR"/tests/fixtures/real/kernel-log/*.log; do
  run healthy-h100x8 --json --sample 0 --no-state --kernel-log "$log"
  keep_report "kernel-log/$(basename "$log")"
done

summarise_kept <<'PY'
for n, p in enumerate(d.get("plan", []), 1):
    # The mock's temporary folder changes from run to run.
    fix = lambda t: re.sub(r"/tmp/with-mock\.[A-Za-z0-9]+", "MOCK", t.replace(src, "SRC"))
    print(fix(f"{name}\t{n}\t{','.join(p.get('finding_ids', []))}\t{p.get('gpu') or ''}\t{p['text']}"))
    for c in p.get("commands", []):
        print(fix(f"{name}\t{n}\t$ {c}"))
PY
(($(wc -l <"$TMP/all") > 100)) || fail "too few plan lines: $(wc -l <"$TMP/all")"
if [[ -n "${GT_UPDATE_GOLDEN:-}" ]]; then
  cp "$TMP/all" "$GOLDEN"
  echo "rewrote $GOLDEN"
  exit 0
fi
[[ -f "$GOLDEN" ]] || fail "$GOLDEN is missing (GT_UPDATE_GOLDEN=1 writes it)"
diff -u "$GOLDEN" "$TMP/all" || fail "a plan changed: review the diff, then GT_UPDATE_GOLDEN=1"
echo ok
