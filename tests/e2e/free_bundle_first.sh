# Evidence before action (issue 37): `free --yes` on the story's node (an
# SGLang launcher and 8 schedulers at 75.8 GB each, the 590 driver) writes
# and names a bundle before its first signal. The bundle holds the servers
# as they were (their /proc files, the launcher's PID in the report), no
# planted secret, and replays; a bundle that cannot be written stops free
# before any signal; --no-bundle acts without one.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/story_gpus.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
TOKEN=hf_PlantedInTheEnvironment0123456789
KEY=sk-PlantedOnTheCommandLine0123456789
start_server() {  # start_server PIDFILE: the launcher's PID in $launcher
  rm -f "$1"
  HF_TOKEN=$TOKEN PYTHONPATH="$TMP" "$PYTHON" -m sglang.launch_server --model-path /models/x \
    --api-key "$KEY" --tp 8 --pid-file "$1" &
  launcher=$!
  for _ in $(seq 50); do [[ -s "$1" ]] && break; sleep 0.1; done
  read -r -a workers <"$1"
  [[ ${#workers[@]} == 8 ]] || fail "launcher did not start its workers"
  for i in $(seq 0 7); do export "W$i=${workers[$i]}"; done
}
trap 'kill -9 $(cat "$TMP"/workers* 2>/dev/null) 2>/dev/null || true; pkill -9 -f "pid-file $TMP/" 2>/dev/null || true; rm -rf "$TMP"' EXIT
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]]; }

story_gpus_scenario "$TMP/scenario.json" 12.590.48.01
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy --timeout 5s "$@"; }
BUNDLES="$GPU_TRIAGE_STATE_DIR/bundles"

# 1. The plan says where --yes records the node, and writes nothing.
start_server "$TMP/workers1"
free
expect_rc 1
expect_out_contains "With --yes the node is recorded first: a bundle in $BUNDLES (--no-bundle skips it)."
[[ ! -e "$BUNDLES" ]] || fail "the plan wrote a bundle"

# 2. A bundle that cannot be written: nothing signalled, exit 2, said why.
: >"$TMP/not-a-dir"
free --yes --grace 5s --bundle-dir "$TMP/not-a-dir/bundles" --json
expect_rc 2
json_check 'any("could not record the node before acting" in e and "nothing was signalled" in e and "--no-bundle" in e for e in d["errors"])' "the failure named, with what to do"
json_check 'd["actions"] == [] and d["bundle"] is None' "no action, no bundle"
for p in $launcher "${workers[@]}"; do alive "$p" || fail "PID $p signalled although no bundle was written"; done
free --yes --grace 5s --bundle-dir "$TMP/not-a-dir/bundles"
expect_rc 2
expect_out_contains "Result: nothing done: 1 error (above)"

# 3. --yes: the bundle first, named, then the signals; every GPU freed.
free --yes --grace 5s --json
expect_rc 0
json_check 'd["bundle"].startswith("'"$BUNDLES"'/gpu-triage-bundle-") and d["bundle"].endswith(".tar.zst")' "the bundle named"
json_check 'd["actions"][0] == "recorded the node before the first signal: " + d["bundle"] + " (gpu-triage --bundle FILE replays it)"' "the bundle is the first action"
json_check 'any("SIGTERM to PID '"$launcher"'" in a for a in d["actions"][1:])' "the signals after it"
json_check 'all(g["free"] for g in d["gpus"]) and len(d["gpus"]) == 8'
for p in $launcher "${workers[@]}"; do if alive "$p"; then fail "PID $p survived"; fi; done
bundle=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bundle"])' "$TMP/out")
[[ -f "$bundle" ]] || fail "no file at $bundle"
[[ "$(stat -c %a "$BUNDLES")" == 700 ]] || fail "the bundle folder is not 0700"
tar -tf "$bundle" >"$TMP/members" || fail "tar cannot list $bundle"
for m in manifest.json report.json nvml.json "root/proc/$launcher/cmdline" "root/proc/${workers[0]}/stat"; do
  grep -qx "$m" "$TMP/members" || fail "the bundle lacks $m (taken before the signal?)"
done
# The servers as they were: the launcher's tree holding all 8 GPUs.
mkdir -p "$TMP/x" && tar -xf "$bundle" -C "$TMP/x"
"$PYTHON" - "$TMP/x/report.json" "$launcher" <<'PY' || fail "the bundle's report lacks the server that was stopped"
import json, sys
r, pid = json.load(open(sys.argv[1])), int(sys.argv[2])
assert any(s.get("root_pid") == pid or pid in s.get("pids", []) for s in r["servers"]), r["servers"]
assert all(g["memory"]["used_bytes"] > 70000 * 2**20 for g in r["gpus"]), "memory was already released"
PY
# No planted secret in any member.
if grep -rlaF -e "$TOKEN" -e "$KEY" "$TMP/x"; then fail "a planted secret survived in the bundle"; fi
grep -qF "HF_TOKEN=<redacted>" "$TMP/x/root/proc/${workers[0]}/environ" || fail "HF_TOKEN not shown as <redacted>"
grep -qF -- "--api-key <redacted>" "$TMP/x/report.txt" "$TMP/x/report.json" || fail "--api-key not shown as <redacted>"
# It replays: the stopped server is there, holding the GPUs.
"$TOOL" --bundle "$bundle" --json >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
[[ "$RC" != 64 && "$RC" != 74 ]] || fail "replay failed ($RC): $(cat "$TMP/err")"
cp "$TMP/out" "$TMP/replay.json"
json_check 'any(s["root_pid"] == '"$launcher"' and len(s["gpus"]) == 8 for s in d["servers"])' "the replay holds the stopped server"
# The same findings as when it was recorded: the journal's answers and the
# clock travel in root/.gt-fixture. (change.local_patch compares files of
# the servers' python environments, which a bundle does not copy.)
"$PYTHON" - "$TMP/x/report.json" "$TMP/replay.json" <<'PY' || fail "the replay's findings differ from the recording's"
import json, sys
ids = lambda f: sorted(x["id"] for x in json.load(open(f))["findings"] if x["id"] != "change.local_patch")
assert ids(sys.argv[1]) == ids(sys.argv[2]), (ids(sys.argv[1]), ids(sys.argv[2]))
PY

# 4. --no-bundle: acts, records nothing.
start_server "$TMP/workers2"
before=$(ls "$BUNDLES" | wc -l)
free --yes --grace 5s --no-bundle --json
expect_rc 0
json_check 'd["bundle"] is None and d["bundle_dir"] is None and not any("recorded the node" in a for a in d["actions"])'
[[ "$(ls "$BUNDLES" | wc -l)" == "$before" ]] || fail "--no-bundle wrote a bundle"
if alive "$launcher"; then fail "--no-bundle did not act"; fi

# 5. Contradictory options are bad usage.
free --yes --no-bundle --bundle-dir "$TMP/b"
expect_rc 64
