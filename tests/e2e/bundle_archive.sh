# gpu-triage bundle (issue 37): the story's node in one archive that tar
# lists, whose manifest names each member with its size and sha256 and how
# each collector ended, and whose root/ tree, read back with --root under
# the same mock NVML, gives the same findings and plan. gzip by the name
# too; a bad name is usage (64); a missing, read-only or too-small target
# is 74 with nothing left behind.
source "$(dirname "$0")/common.sh"

run story bundle -o "$TMP/b.tar.zst" --no-state
expect_rc 0
expect_out_contains "gpu-triage bundle: wrote $TMP/b.tar.zst"
tar -tf "$TMP/b.tar.zst" >"$TMP/list" || fail "tar -tf cannot list the bundle"
for m in report.json report.txt nvml.json manifest.json root/dev/kmsg root/proc/1/stat \
  root/proc/3141/cmdline root/proc/3141/cgroup; do
  grep -qx -- "$m" "$TMP/list" || fail "the bundle lacks $m: $(head -50 "$TMP/list")"
done
mkdir "$TMP/x"
tar -xf "$TMP/b.tar.zst" -C "$TMP/x"
"$PYTHON" - "$TMP/x" <<'PY' || fail "manifest"
import hashlib, json, os, sys
x = sys.argv[1]
m = json.load(open(x + "/manifest.json"))
assert m["schema"] == "gpu-triage/bundle" and m["redacted"] is True, m
names = {c["name"]: c["outcome"] for c in m["collectors"]}
assert names == {"triage": "done", "nvidia-smi": "skipped", "nvidia-bug-report": "skipped"}, names
files = set()
for root, _, fs in os.walk(x):
    for f in fs:
        if not os.path.islink(os.path.join(root, f)):
            files.add(os.path.relpath(os.path.join(root, f), x))
listed = {b["name"] for b in m["members"]}
assert files - {"manifest.json"} == listed, (files ^ listed)
for b in m["members"]:
    data = open(os.path.join(x, b["name"]), "rb").read()
    assert len(data) == b["size_bytes"], b
    assert hashlib.sha256(data).hexdigest() == b["sha256"], b
nv = json.load(open(x + "/nvml.json"))
assert nv["schema"] == "gpu-triage/nvml-answers" and len(nv["gpus"]) == 8, nv.keys()
PY

# The recorded tree, replayed: the same findings and plan.
run story --json --no-state
cp "$TMP/out" "$TMP/live.json"
run story --json --no-state --root "$TMP/x/root"
"$PYTHON" - "$TMP/live.json" "$TMP/out" <<'PY' || fail "the replayed tree says something else"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: sorted((f["id"], f["severity"], json.dumps(f["subject"], sort_keys=True))
                       for f in r["findings"])
assert key(a) == key(b), set(key(a)) ^ set(key(b))
assert a["plan"] == b["plan"]
PY

# The replay says it is one: where the bundle came from and when.
set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" --bundle "$TMP/b.tar.zst" --no-state >"$TMP/out" 2>"$TMP/err"
set -e
expect_out_contains "replayed from the bundle $TMP/b.tar.zst, recorded on llm-rtxpro-03 at"
expect_out_lacks "the bundle cut"
# A kernel log cut to fit --max-size: the replay says its counts can be low.
cp -r "$GT_SOURCE_DIR/tests/scenarios/story" "$TMP/big"
"$PYTHON" - "$TMP/big/root/dev/kmsg" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "a") as f:
    for i in range(60000):
        f.write("4,%d,%d,-;NVRM: Xid (PCI:0000:18:00): 79, %08x GPU has fallen off the bus.\n"
                % (100 + i, 9000000 + i, random.getrandbits(32)))
PY
run "$TMP/big" bundle -o "$TMP/cut.tar.zst" --no-state --max-size 200KiB
expect_rc 0
set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" --bundle "$TMP/cut.tar.zst" --no-state --wide >"$TMP/out" 2>"$TMP/err"
set -e
expect_out_contains "the bundle cut "
expect_out_contains "counts read from them can be lower than the node's"

# gzip by the name.
run story bundle -o "$TMP/b.tar.gz" --no-state
expect_rc 0
gzip -t "$TMP/b.tar.gz" || fail "not gzip"
tar -tzf "$TMP/b.tar.gz" >"$TMP/gzlist"
grep -qx manifest.json "$TMP/gzlist" || fail "no manifest in the .tar.gz"

# Bad usage, and targets that cannot take it: nothing left behind.
run story bundle -o "$TMP/b.zip"
expect_rc 64
run story bundle -o "$TMP/no/such/b.tar.zst"
expect_rc 74
[[ ! -e "$TMP/no" ]] || fail "a folder was made"
run story bundle -o "$TMP/small.tar.zst" --max-size 1KiB
expect_rc 74
grep -q "more than --max-size" "$TMP/err" || fail "no reason: $(cat "$TMP/err")"
run story bundle -o "$TMP/full.tar.zst" --min-free 1000000TiB
expect_rc 74
grep -q "must leave" "$TMP/err" || fail "no reason: $(cat "$TMP/err")"
ls -A "$TMP" | grep -qE '^(small|full)|\.tmp|XXXX' && fail "left behind: $(ls -A "$TMP")"
exit 0
