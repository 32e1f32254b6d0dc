# gpu-triage bundle under its deadlines (issue 37): a mock GPU hung inside
# an NVML call and a fake nvidia-bug-report.sh (on PATH) that never exits.
# The bundle is written within the deadlines, both recorded as timed out,
# and what the bug report wrote before its deadline is in the archive.
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/bin"
cat >"$TMP/bin/nvidia-bug-report.sh" <<'SH'
#!/bin/sh
# Writes a little, then hangs as the real one does on a wedged driver.
echo "collecting" >&2
echo "partial report" >"$2"
exec sleep 600
SH
chmod +x "$TMP/bin/nvidia-bug-report.sh"
export PATH="$TMP/bin:$PATH"

run one-gpu-hung bundle -o "$TMP/b.tar.zst" --no-state --timeout 2s --with-bug-report \
  --bug-report-timeout 2s
expect_rc 0
((WALL_MS < 15000)) || fail "took ${WALL_MS} ms, past the deadlines (2 s + 2 s)"
mkdir "$TMP/x"
tar -xf "$TMP/b.tar.zst" -C "$TMP/x"
"$PYTHON" - "$TMP/x/manifest.json" <<'PY' || fail "manifest: $(cat "$TMP/x/manifest.json")"
import json, sys
m = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in m["collectors"]}
assert c["triage"]["outcome"] == "timed_out", c["triage"]
assert c["nvidia-bug-report"]["outcome"] == "timed_out", c["nvidia-bug-report"]
assert c["nvidia-bug-report"]["deadline_s"] == 2.0
PY
grep -qx "partial report" "$TMP/x/bug-report/nvidia-bug-report.log" || fail "what it wrote is lost"
# No fake bug report left running, no scratch folder left.
if pgrep -f "$TMP/bin/nvidia-bug-report.sh" >/dev/null; then fail "the bug report still runs"; fi
ls -A "$TMP" | grep -q gpu-triage-bug-report && fail "scratch left: $(ls -A "$TMP")"
exit 0
