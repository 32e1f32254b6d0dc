# Every scenario's judgement, pinned: the findings (severity and id) and the
# exit code of every scenario, real capture and real kernel-log fixture,
# against tests/golden/scenario_findings.txt. A change of judgement shows
# here as a diff to review; GT_UPDATE_GOLDEN=1 rewrites the file. Scenarios
# at a 200 ms window: two samples, the fewest that still call a server idle
# (every scenario's findings are those of the default 1 s).
source "$(dirname "$0")/common.sh"

GOLDEN="$GT_SOURCE_DIR/tests/golden/scenario_findings.txt"

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 200ms --no-state
  keep_report "scenario/$s"
done
for xml in "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/*.xml; do
  set +e
  "$TOOL" --smi-xml "$xml" --json >"$TMP/out" 2>/dev/null
  RC=$?
  set -e
  keep_report "capture/$(basename "$xml")"
done
for log in "$GT_SOURCE_DIR"/tests/fixtures/real/kernel-log/*.log; do
  run healthy-h100x8 --json --sample 0 --no-state --kernel-log "$log"
  keep_report "kernel-log/$(basename "$log")"
done

summarise_kept <<'PY'
print(f"{name}\texit {rc}\t{d['verdict']}")
for f in sorted(d["findings"], key=lambda f: (f["id"], f["severity"], json.dumps(f.get("subject")))):
    subj = f.get("subject") or {}
    who = subj.get("gpu_index", subj.get("pci_bus_id", subj.get("server_id", subj.get("path", ""))))
    print(f"{name}\t{f['severity']}\t{f['id']}\t{who if who is not None else ''}")
PY
if [[ -n "${GT_UPDATE_GOLDEN:-}" ]]; then
  cp "$TMP/all" "$GOLDEN"
  echo "rewrote $GOLDEN"
  exit 0
fi
[[ -f "$GOLDEN" ]] || fail "$GOLDEN is missing (GT_UPDATE_GOLDEN=1 writes it)"
diff -u "$GOLDEN" "$TMP/all" || fail "a judgement changed: review the diff, then GT_UPDATE_GOLDEN=1"
echo ok
