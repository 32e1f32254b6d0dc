# serve's /bundle (issue 37 item 4): off by default (404, not on the index);
# with --allow-bundle, GET /bundle is a bundle of the node built then, as
# `gpu-triage bundle` builds it: a tar.zst that tar lists, redacted, that
# --bundle replays to the same findings as the triage. One at a time: a
# second request while one is built is 429 with Retry-After.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"

start_serve story --max-age 10m --no-state
fetch /bundle
[[ "$HTTP_STATUS" == 404 ]] || fail "/bundle without --allow-bundle: $HTTP_STATUS"
fetch /
grep -q "/bundle" "$TMP/body" && fail "the index offers /bundle: $(cat "$TMP/body")"
kill -TERM -- "-$SERVE_PGID"
wait "$SERVE_PGID" 2>/dev/null || true

# A slow nvidia-smi (on PATH) holds the first bundle long enough to ask twice.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nsleep 2\necho "<nvidia_smi_log/>"\n' >"$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/nvidia-smi"
export PATH="$TMP/bin:$PATH"
start_serve story --max-age 10m --no-state --allow-bundle
grep -q "/bundle" "$TMP/serve.err" || fail "serve does not say /bundle: $(cat "$TMP/serve.err")"
curl -sS -m 30 -o "$TMP/first.tar.zst" -D "$TMP/first.headers" -w '%{http_code}' \
  "$SERVE_URL/bundle" >"$TMP/first.status" &
first=$!
sleep 1
fetch /bundle
[[ "$HTTP_STATUS" == 429 ]] || fail "a second bundle while one is built: $HTTP_STATUS"
grep -qi '^Retry-After:' "$TMP/headers" || fail "429 without Retry-After"
wait "$first"
[[ "$(cat "$TMP/first.status")" == 200 ]] || fail "/bundle: $(cat "$TMP/first.status")"
grep -qi '^Content-Type: application/zstd' "$TMP/first.headers" || fail "$(cat "$TMP/first.headers")"
grep -qiE '^Content-Disposition: attachment; filename="gpu-triage-bundle-llm-rtxpro-03-[0-9TZ]+\.tar\.zst"' \
  "$TMP/first.headers" || fail "file name: $(cat "$TMP/first.headers")"
tar -tf "$TMP/first.tar.zst" >"$TMP/list" || fail "tar cannot list the bundle"
grep -qx "report.json" "$TMP/list" || fail "no report.json: $(head "$TMP/list")"
grep -qx "manifest.json" "$TMP/list" || fail "no manifest.json"
mkdir "$TMP/x" && tar -xf "$TMP/first.tar.zst" -C "$TMP/x"
"$PYTHON" -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["redacted"] is True, m' \
  "$TMP/x/manifest.json" || fail "not redacted: $(head -c 500 "$TMP/x/manifest.json")"

# The same findings as a triage of the node, replayed with nothing of it.
run story --json --no-state --timeout 2s
cp "$TMP/out" "$TMP/live.json"
set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" --bundle "$TMP/first.tar.zst" --json --no-state >"$TMP/replay.json" 2>"$TMP/err"
set -e
"$PYTHON" - "$TMP/live.json" "$TMP/replay.json" <<'PY' || fail "the served bundle replays differently"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: sorted((f["id"], f["severity"]) for f in r["findings"])
assert key(a) == key(b), set(key(a)) ^ set(key(b))
PY
# serve still answers after it.
fetch /healthz
[[ "$HTTP_STATUS" == 200 ]] || fail "/healthz after /bundle: $HTTP_STATUS"
exit 0
