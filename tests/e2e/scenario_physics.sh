# The physics of a GPU node (issue 46, docs/physics.md): every scenario is a
# state a real node can be in (tests/scenarios/realism.py, each rule proven
# by a planted violation), the scenarios on disk are generate.py's output,
# and no scenario's report predicts a CUDA failure for a new job that its
# own GPU processes disprove: every process holding GPU memory beside such a
# prediction must be shown, by its maps, to run on another file (or one
# deleted since it started).
source "$(dirname "$0")/common.sh"

"$PYTHON" "$GT_SOURCE_DIR/tests/scenarios/realism.py" >"$TMP/realism" 2>&1 ||
  fail "a scenario breaks NVIDIA's rules:
$(cat "$TMP/realism")"
"$PYTHON" "$GT_SOURCE_DIR/tests/scenarios/realism.py" --self-test >"$TMP/self" 2>&1 ||
  fail "the realism check's self-test: $(cat "$TMP/self")"

# The generator's output is what is committed (a hand edit would bypass the check).
cp -a "$GT_SOURCE_DIR/tests/scenarios" "$TMP/scenarios"
"$PYTHON" "$TMP/scenarios/generate.py"
# git keeps no empty directory: one the generator makes is lost on a clone,
# and the clone then differs from the generator's output (CI, not here).
empty=$(cd "$TMP/scenarios" && find . -type d -empty | head -5)
[[ -z "$empty" ]] || fail "generate.py makes empty directories a clone loses: $empty"
diff -r --no-dereference "$GT_SOURCE_DIR/tests/scenarios" "$TMP/scenarios" -x __pycache__ >"$TMP/diff" ||
  fail "tests/scenarios differs from generate.py's output: $(head -40 "$TMP/diff")"

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" && "$s" != malformed ]] || continue
  run "$s" --json --sample 0 --no-state
  "$PYTHON" - "$TMP/out" "$s" <<'PY' || fail "$s: a prediction its own processes disprove"
import json, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
predictions = [f for f in d["findings"]
               if f["id"] in ("cuda.driver_mismatch", "cuda.compat_unsupported")
               and (f.get("subject") or {}).get("kind") == "node"]
if not predictions:
    sys.exit(0)
cuda = d.get("cuda") or {}
job = next((l for l in cuda.get("loaders", []) if l.get("pid") is None), {})
predicted = next((l.get("file") for l in job.get("libraries", [])
                  if l.get("soname") == "libcuda.so.1"), None)
mapped = {m["pid"]: m for m in cuda.get("mapped", [])}
for g in d.get("gpus", []):
    for p in g.get("processes") or []:
        if not p.get("used_memory_bytes") or "compute" not in (p.get("type") or "compute"):
            continue  # graphics contexts do not go through libcuda
        libs = [l for l in mapped.get(p["pid"], {}).get("libraries", [])
                if "/libcuda.so" in l["path"]]
        if not libs or any(l["path"] == predicted and not l["deleted"] for l in libs):
            print(f"{name}: pid {p['pid']} holds GPU memory on GPU {g.get('index')} "
                  f"and nothing shows it runs on another libcuda than {predicted}, "
                  f"yet the report predicts: {predictions[0]['title']}")
            sys.exit(1)
PY
done
