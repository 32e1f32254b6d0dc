# fleet --reports DIR accepts bundles (issue 37 item 5): each bundle in the
# folder is replayed as `gpu-triage --bundle FILE` replays it and judged
# here, named by the host it recorded, beside saved --json reports; a
# damaged bundle is an UNKNOWN host naming its file and why, never a crash
# and never OK; the fleet's exit code is the worst host's.
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/r"
run story bundle -o "$TMP/r/story.tar.zst" --no-state --timeout 2s
expect_rc 0
run healthy-h100x8 bundle -o "$TMP/r/healthy.tgz" --no-state --timeout 2s
expect_rc 0
run two-vllm-tp4 --json --no-state --timeout 2s
# Its own host name: the healthy scenario's is the same (gpu-node-01), and
# reports of one host name count as one host (issue 48 item 17).
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["hostname"] = "tp4-node"; json.dump(d, open(sys.argv[2], "w"))' \
  "$TMP/out" "$TMP/r/tp4.json"
# A bundle cut off as a full disk cuts a copy, and gzip bytes under a name
# that says nothing.
head -c 3000 "$TMP/r/story.tar.zst" >"$TMP/r/cut.tar.zst"
printf '\037\213garbage' >"$TMP/r/noname"

# What the story's bundle says on its own, judged with nothing of this machine.
set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" --bundle "$TMP/r/story.tar.zst" --json --no-state >"$TMP/alone.json" 2>/dev/null
set -e

set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" fleet --reports "$TMP/r" --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
# Two UNKNOWN hosts are the worst of the verdicts (the story is WARNING:
# nothing critical is there).
expect_rc 3
"$PYTHON" - "$TMP/out" "$TMP/alone.json" <<'PY' || fail "fleet of bundles: $(head -c 3000 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
alone = json.load(open(sys.argv[2]))
hosts = d["hosts"]
via = sorted(h["via"] for h in hosts)
assert via == ["bundle", "bundle", "bundle", "bundle", "report"], via
key = lambda r: sorted((f["id"], f["severity"], json.dumps(f["subject"], sort_keys=True))
                       for f in r["findings"])
story = [h for h in hosts if h["via"] == "bundle" and h["report"]
         and h["report"]["hostname"] == alone["hostname"]
         and key(h["report"]) == key(alone)]
assert story, "the story's bundle is not judged as --bundle judges it"
assert story[0]["report"]["plan"] == alone["plan"]
unread = [h for h in hosts if h["report"] is None]
assert sorted(h["host"] for h in unread) == ["cut", "noname"], [h["host"] for h in unread]
for h in unread:
    assert h["verdict"] == "UNKNOWN", h
    assert h["error"], h
PY
# The text names the damaged bundle's file and says why.
set +e
"$TOOL" fleet --reports "$TMP/r" >"$TMP/out" 2>"$TMP/err"
set -e
expect_out_contains "cut"
expect_out_contains "not a readable bundle"
exit 0
