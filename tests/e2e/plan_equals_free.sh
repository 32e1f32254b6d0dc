# One answer: for every scenario, each idle server's commands in the report
# (finding and plan step) equal `gpu-triage free`'s commands for the same
# server, on the same fixture tree, to the letter (both drop sudo as root).
# Both at a 200 ms window: two samples, the fewest that still call a server
# idle (every scenario's findings are those of the default 1 s).
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/pairs"
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" && -d "$dir/root" ]] || continue
  run "$s" --json --sample 200ms --no-kernel-log
  cp "$TMP/out" "$TMP/pairs/$s.report.json"
  run "$s" free --json --sample 200ms
  # No NVML there: nothing to free (free --json answers with an error object).
  if [[ "$RC" != 0 && "$RC" != 1 ]] && grep -q '"error"' "$TMP/out"; then
    rm "$TMP/pairs/$s.report.json"
    continue
  fi
  cp "$TMP/out" "$TMP/pairs/$s.free.json"
done
# Every pair checked by one Python (a start-up per scenario was a third of
# this test's CPU).
"$PYTHON" - "$TMP/pairs" <<'PY' || fail "the plan and free differ (above)"
import glob, json, os, sys
checked = 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.report.json"))):
    name = os.path.basename(path)[:-len(".report.json")]
    report, free = json.load(open(path)), json.load(open(path[:-len(".report.json")] + ".free.json"))
    targets = {t["server_id"]: t["commands"] for t in free["targets"]}
    refused = {r["pid"] for r in free["refusals"]}
    for f in report["findings"]:
        if f["id"] != "memory.held_idle":
            continue
        sid = f["subject"]["server_id"]
        if sid in targets:
            assert f["commands"] == targets[sid], (name, sid, f["commands"], targets[sid])
        else:
            # What free said instead goes into the message (a failure seen once
            # under load 12 could not be reproduced: keep its evidence).
            assert f["subject"]["pid"] in refused, (name, sid, "neither planned nor refused by free",
                {k: free.get(k) for k in ("skipped", "warnings", "errors", "gpus")})
        assert any(p["commands"] == f["commands"] for p in report["plan"]), (name, sid, "no plan step")
    print(name, "ok", len(targets), "targets")
    checked += 1
assert checked >= 10, f"only {checked} scenarios checked"
PY
