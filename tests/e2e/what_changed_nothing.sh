# Issue 36: nothing changed, nothing said. Every scenario is run three times
# with one record: twice in one boot, then in the next boot with the node as
# it was. No change.* finding but change.local_patch (a fact of the node,
# said without a baseline) may appear, in any run.
source "$(dirname "$0")/common.sh"
n=0
for sc in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  name=$(basename "$sc")
  [[ -f "$sc/scenario.json" ]] || continue
  [[ "$name" == malformed ]] && continue
  dir="$TMP/$name"
  cp -r "$sc" "$dir"
  [[ -d "$dir/root" ]] || cp -r "$GT_SOURCE_DIR/tests/scenarios/empty-root" "$dir/root"
  mkdir -p "$dir/root/proc/sys/kernel/random"
  state="$TMP/state-$name"
  for b in 1 1 2; do
    echo "7a0e3c1$b-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$dir/root/proc/sys/kernel/random/boot_id"
    run "$dir" --sample 0 --json --state-dir "$state"
    "$PYTHON" - "$TMP/out" "$name" "$b" <<'PY' || fail "$name boot $b: a change was found on an unchanged node"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f["id"] + ": " + f["title"] for f in d["findings"]
       if f["id"].startswith("change.") and f["id"] != "change.local_patch"]
if d.get("history") is None or d["history"].get("fingerprint") is None:
    print(sys.argv[2] + ": no fingerprint taken", file=sys.stderr)
    sys.exit(1)
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
PY
  done
  n=$((n + 1))
done
((n > 20)) || fail "only $n scenarios run"
