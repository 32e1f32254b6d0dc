# fleet --reports DIR and --smi-xml DIR: an entry of the folder that is no
# file (a FIFO, a link to a device, a link to nothing, a link that loops) is
# a host whose report cannot be read, UNKNOWN and named with what it is,
# never left out without a word (the fleet then said OK over the one good
# report). A subfolder is not a host (the folder's own files are).
source "$(dirname "$0")/common.sh"

run healthy-h100x8 --json --sample 0 --no-state
mkdir -p "$TMP/r/sub"
cp "$TMP/out" "$TMP/r/good.json"
mkfifo "$TMP/r/pipe.json"
ln -s /dev/zero "$TMP/r/zero.json"
ln -s "$TMP/r/missing.json" "$TMP/r/dangling.json"
ln -s "$TMP/r/loop.json" "$TMP/r/loop.json"
set +e
timeout 20 "$TOOL" fleet --reports "$TMP/r" --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
[[ "$RC" == 3 ]] || fail "exit $RC, want 3 (UNKNOWN): $(cat "$TMP/out" "$TMP/err")"
"$PYTHON" - "$TMP/out" <<'PY' || fail "$(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
hosts = {h["host"]: h for h in d["hosts"]}
want = {"pipe": "a FIFO, not a file", "zero": "a link to a device, not a file",
        "dangling": "a link to nothing, not a file", "loop": "a link that loops, not a file"}
for name, what in want.items():
    h = hosts.get(name)
    assert h and h["verdict"] == "UNKNOWN" and h["error"].endswith(what), (name, h)
assert not any(k.startswith("sub") for k in hosts), hosts.keys()
assert len(hosts) == 5, sorted(hosts)
PY
exit 0
