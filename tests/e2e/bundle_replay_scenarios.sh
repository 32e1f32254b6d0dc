# gpu-triage --bundle FILE (issue 37 item 5): every scenario triaged under
# the mock, bundled, and the bundle judged with no mock library and no
# GPU_TRIAGE_ROOT (nothing of this machine read): the same findings (ids,
# severities, subjects) and the same plan as the triage that recorded it.
# The story's bundle replayed this way is what `make demo` shows. Both at a
# 200 ms sample window (two samples, the fewest that still call a server
# idle: every scenario's findings are those of the default 1 s), not what
# is tested here: replaying what was recorded.
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/pairs"
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  name=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$name" --json --no-state --timeout 2s --sample 200ms
  cp "$TMP/out" "$TMP/pairs/$name.live.json"
  run "$name" bundle -o "$TMP/$name.tar.zst" --no-state --timeout 2s --sample 200ms
  [[ "$RC" == 0 ]] || fail "$name: bundle exit $RC: $(cat "$TMP/err")"
  set +e
  env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
    "$TOOL" --bundle "$TMP/$name.tar.zst" --json --no-state >"$TMP/pairs/$name.replay.json" 2>"$TMP/err"
  set -e
done
# Every pair compared by one Python (a start-up per scenario was a third of
# this test's CPU).
"$PYTHON" - "$TMP/pairs" <<'PY' || fail "replayed differently (above)"
import glob, json, os, re, sys
bad = []
for live in sorted(glob.glob(os.path.join(sys.argv[1], "*.live.json"))):
    name = os.path.basename(live)[:-len(".live.json")]
    try:
        # The mock's temporary folder differs between two runs (no-driver names it).
        a, b = (json.loads(re.sub(r"/tmp/with-mock\.[A-Za-z0-9]+", "MOCK", open(p).read()))
                for p in (live, live[:-len(".live.json")] + ".replay.json"))
    except ValueError as e:
        bad.append(f"{name}: no JSON report ({e})")
        continue
    key = lambda r: sorted((f["id"], f["severity"], json.dumps(f["subject"], sort_keys=True))
                           for f in r["findings"])
    if key(a) != key(b) or a["plan"] != b["plan"]:
        bad.append(f"{name}: {set(key(a)) ^ set(key(b))} plan equal: {a['plan'] == b['plan']}")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit 0
