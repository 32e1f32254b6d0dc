# gpu-triage bundle redacts by default (issue 37 item 3): secrets planted in
# a real process's environment and argv (started here, held a mock GPU), in
# a unit file's Environment= and in URLs are absent from every member of
# the extracted archive and from the decompressed bytes; the manifest names
# what was redacted, never the value; --no-redact keeps them.
source "$(dirname "$0")/common.sh"

secrets=(hf_PLANTEDenv1 sk-PLANTEDenv2 sk-PLANTEDargv3 hf_PLANTEDargv4 PLANTEDurlpw5
  hf_PLANTEDunit6 PLANTEDbearer7)
env HF_TOKEN=hf_PLANTEDenv1 OPENAI_API_KEY=sk-PLANTEDenv2 \
  "$PYTHON" -c 'import time; time.sleep(600)' --api-key sk-PLANTEDargv3 --hf-token=hf_PLANTEDargv4 \
  --model https://bob:PLANTEDurlpw5@models.example/m &
holder=$!
trap 'kill -9 $holder 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do grep -q PLANTEDargv3 /proc/$holder/cmdline 2>/dev/null && break; sleep 0.1; done
export HOLDER=$holder
# One GPU held by the process (pid from $HOLDER).
cp "$GT_SOURCE_DIR/tests/fixtures/secrets/one_holder.json" "$TMP/scenario.json"

# no_secret DIR ARCHIVE: no planted value anywhere in it.
no_secret() {
  rm -rf "$TMP/x" && mkdir "$TMP/x" && tar -xf "$2" -C "$TMP/x"
  for s in "${secrets[@]}"; do
    if grep -rqa -- "$s" "$TMP/x"; then fail "$s survives in $(grep -rla -- "$s" "$TMP/x")"; fi
    zstd -dc "$2" >"$TMP/raw"
    if grep -qa -- "$s" "$TMP/raw"; then fail "$s survives in the decompressed bytes"; fi
  done
}

# 1. The real process, on this machine's /proc.
run "$TMP/scenario.json" bundle -o "$TMP/live.tar.zst" --root / --no-state --no-kernel-log
expect_rc 0
tar -tf "$TMP/live.tar.zst" >"$TMP/list"
grep -qx "root/proc/$holder/cmdline" "$TMP/list" || fail "the holder's cmdline was not copied"
no_secret "$TMP/x" "$TMP/live.tar.zst"
grep -q -- "--api-key <redacted>" "$TMP/x/report.json" || fail "report.json lost the option's name"
tr '\0' '\n' <"$TMP/x/root/proc/$holder/cmdline" | grep -qx -- "--hf-token=<redacted>" ||
  fail "cmdline: $(tr '\0' ' ' <"$TMP/x/root/proc/$holder/cmdline")"
"$PYTHON" - "$TMP/x/manifest.json" "$holder" <<'PY' || fail "the manifest does not say what was redacted"
import json, sys
m = json.load(open(sys.argv[1])); pid = sys.argv[2]
got = {(r["member"], r["what"]) for r in m["redactions"]}
for want in [("root/proc/%s/cmdline" % pid, "--api-key"), ("root/proc/%s/cmdline" % pid, "--hf-token"),
             ("root/proc/%s/cmdline" % pid, "URL userinfo"), ("report.json", "--api-key")]:
    assert want in got, (want, sorted(got))
assert "PLANTED" not in open(sys.argv[1]).read()
PY
if grep -qx "root/proc/$holder/environ" "$TMP/list"; then
  tr '\0' '\n' <"$TMP/x/root/proc/$holder/environ" | grep -qx "HF_TOKEN=<redacted>" || fail "environ"
fi

# 2. A unit file's Environment= and a worker's environ, in incident-story's
#    tree (SGLang under sglang.service).
cp -a "$GT_SOURCE_DIR/tests/scenarios/incident-story/root" "$TMP/root"
unit="$TMP/root/etc/systemd/system/sglang.service"
sed -i 's|^Environment=CUDA_DEVICE_ORDER=PCI_BUS_ID|&\nEnvironment="HF_TOKEN=hf_PLANTEDunit6" "MODE=x"\nExecStartPre=/usr/bin/curl -H "Authorization: Bearer PLANTEDbearer7" http://x/|' "$unit"
printf 'HF_TOKEN=hf_PLANTEDenv1\0' >>"$TMP/root/proc/3187/environ"
run story bundle -o "$TMP/story.tar.zst" --root "$TMP/root" --no-state
expect_rc 0
no_secret "$TMP/x" "$TMP/story.tar.zst"
grep -q '^Environment="HF_TOKEN=<redacted>" "MODE=x"$' "$TMP/x/root/etc/systemd/system/sglang.service" ||
  fail "unit: $(cat "$TMP/x/root/etc/systemd/system/sglang.service")"

# 3. --no-redact keeps them (the operator asked).
run story bundle -o "$TMP/raw.tar.zst" --root "$TMP/root" --no-state --no-redact
expect_rc 0
zstd -dc "$TMP/raw.tar.zst" >"$TMP/raw"
grep -qa hf_PLANTEDunit6 "$TMP/raw" || fail "--no-redact redacted"
exit 0
