# Issue 36: nothing changed, nothing said. Every scenario is run three times
# with one record: twice in one boot, then in the next boot with the node as
# it was. No change.* finding but change.local_patch (a fact of the node,
# said without a baseline) may appear, in any run.
source "$(dirname "$0")/common.sh"
n=0 k=0
for sc in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  name=$(basename "$sc")
  [[ -f "$sc/scenario.json" ]] || continue
  [[ "$name" == malformed ]] && continue
  dir="$TMP/$name"
  cp -r "$sc" "$dir"
  [[ -d "$dir/root" ]] || cp -r "$GT_SOURCE_DIR/tests/scenarios/empty-root" "$dir/root"
  mkdir -p "$dir/root/proc/sys/kernel/random"
  state="$TMP/state-$name"
  mkdir -p "$TMP/reports/$name"
  for b in 1 1 2; do
    echo "7a0e3c1$b-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$dir/root/proc/sys/kernel/random/boot_id"
    run "$dir" --sample 0 --json --state-dir "$state"
    cp "$TMP/out" "$TMP/reports/$name/$((++k)).boot-$b.json"
  done
  n=$((n + 1))
done
((n > 20)) || fail "only $n scenarios run"
# Every report read at the end, by one Python (a start-up per run was a
# third of this test's time).
"$PYTHON" - "$TMP/reports" <<'PY' || fail "a change was found on an unchanged node"
import json, os, sys
root, bad = sys.argv[1], []
for name in sorted(os.listdir(root)):
    for run in sorted(os.listdir(os.path.join(root, name))):
        where = name + " " + run.split(".")[1]
        try:
            d = json.load(open(os.path.join(root, name, run)))
        except ValueError as e:
            bad.append(f"{where}: no JSON report ({e})")
            continue
        if d.get("history") is None or d["history"].get("fingerprint") is None:
            bad.append(f"{where}: no fingerprint taken")
        bad += [f"{where}: {f['id']}: {f['title']}" for f in d["findings"]
                if f["id"].startswith("change.") and f["id"] != "change.local_patch"]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
