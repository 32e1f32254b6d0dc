# fleet --drift sets each host against its own past (issue 36 item 4):
# saved reports made by real `gpu-triage --json` runs, each with its own
# record across boots (--state-dir). "rebooted" ran in boot 1 (container
# OLD, /data on vdb1), then in boot 2 (container NEW, /data on nvme0n1p1,
# the board at 2a:00.0 replaced): the fleet lists those three changes with
# the old and new values and the baseline's boot, the same changes as the
# node's own change.* findings. "steady" ran twice in one boot: unchanged
# since this boot's first run. "fresh" ran once: no earlier run recorded.
# "nostate" ran with --no-state: no fingerprint, own past not known, never
# unchanged.
source "$(dirname "$0")/common.sh"
OLD=1111111111111111111111111111111111111111111111111111111111111111
NEW=2222222222222222222222222222222222222222222222222222222222222222
mkdir -p "$TMP/r"

# boot HOST N CONTAINER DEVICE [replaced] -- ARGS...: HOST's node as boot N saw it, run with ARGS.
boot() {
  local host="$1" n="$2" container="$3" device="$4" replaced="$5"
  shift 6
  DIR="$TMP/$host$n"
  rm -rf "$DIR"
  cp -r "$GT_SOURCE_DIR/tests/scenarios/story" "$DIR"
  local root="$DIR/root"
  echo "$host" >"$root/etc/hostname"
  echo "$host" >"$root/proc/sys/kernel/hostname"
  mkdir -p "$root/proc/sys/kernel/random"
  echo "5e1f0c2$n-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$root/proc/sys/kernel/random/boot_id"
  echo "0::/system.slice/docker-$container.scope" >"$root/proc/self/cgroup"
  echo "40 22 259:1 / /data rw,relatime shared:30 - ext4 /dev/$device rw" >>"$root/proc/self/mountinfo"
  if [[ "$replaced" == replaced ]]; then
    "$PYTHON" - "$DIR/scenario.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["devices"][1]["serial"] = "1794125999999"
d["devices"][1]["uuid"] = "GPU-00000000-1111-2222-3333-444444444444"
json.dump(d, open(sys.argv[1], "w"))
PY
  fi
  run "$DIR" --sample 0 --json "$@"
  [[ -s "$TMP/out" ]] || fail "$host boot $n: no report; stderr: $(head -c 2000 "$TMP/err")"
}

boot rebooted 1 "$OLD" vdb1 "" -- --state-dir "$TMP/s-rebooted"
boot rebooted 2 "$NEW" nvme0n1p1 replaced -- --state-dir "$TMP/s-rebooted"
cp "$TMP/out" "$TMP/r/rebooted.json"
own=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted(f["id"] for f in d["findings"] if f["id"].startswith("change."))))' "$TMP/out")
[[ "$own" == "change.container_recreated change.data_device change.gpu_replaced" ]] ||
  fail "the node's own changes: $own"
boot steady 1 "$OLD" vdb1 "" -- --state-dir "$TMP/s-steady"
boot steady 1 "$OLD" vdb1 "" -- --state-dir "$TMP/s-steady"
cp "$TMP/out" "$TMP/r/steady.json"
boot fresh 1 "$OLD" vdb1 "" -- --state-dir "$TMP/s-fresh"
cp "$TMP/out" "$TMP/r/fresh.json"
boot nostate 1 "$OLD" vdb1 "" -- --no-state
cp "$TMP/out" "$TMP/r/nostate.json"

set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" fleet --reports "$TMP/r" --drift --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
[[ -s "$TMP/out" ]] || fail "no fleet output (rc $RC): $(head -c 2000 "$TMP/err")"
"$PYTHON" - "$TMP/out" "$TMP/r/rebooted.json" <<'PY' || fail "own past: $(head -c 4000 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
node = json.load(open(sys.argv[2]))
past = {p["host"]: p for p in d["drift"]["own_past"]}
assert sorted(past) == ["fresh", "nostate", "rebooted", "steady"], sorted(past)
r = past["rebooted"]
assert r["state"] == "compared", r
assert r["baseline"]["boot_id"] == "5e1f0c21-4f3a-4b6c-9d8e-7f6a5b4c3d2e", r["baseline"]
assert r["baseline"]["this_boot"] is False
assert r["baseline"]["when"].startswith("the last run of boot 5e1f0c21 ("), r["baseline"]
assert r["baseline"]["time"].endswith("Z"), r["baseline"]
kinds = sorted(c["kind"] for c in r["changes"])
assert kinds == ["container_recreated", "data_device", "gpu_replaced"], r["changes"]
by = {c["kind"]: c for c in r["changes"]}
old, new = "1" * 64, "2" * 64
assert (by["container_recreated"]["before"], by["container_recreated"]["after"]) == (old, new)
assert by["data_device"]["item"] == "/data", by["data_device"]
assert "vdb1" in by["data_device"]["before"] and "nvme0n1p1" in by["data_device"]["after"]
assert by["gpu_replaced"]["item"] == "0000:2a:00.0", by["gpu_replaced"]
assert "1794125999999" in by["gpu_replaced"]["after"], by["gpu_replaced"]
assert "1794125999999" not in by["gpu_replaced"]["before"], by["gpu_replaced"]
# The same changes as the node's own findings: one comparison.
ids = sorted(f["id"] for f in node["findings"] if f["id"].startswith("change."))
assert ids == ["change." + k for k in kinds], ids
s = past["steady"]
assert s["state"] == "compared" and s["changes"] == [] and s["baseline"]["this_boot"] is True, s
assert past["fresh"]["state"] == "no_earlier_run" and past["fresh"]["baseline"] is None
n = past["nostate"]
assert n["state"] == "not_known" and n["why"] == "no record" and n["changes"] == [], n
PY

# The text: one line per change, each host's state; never "unchanged" for the host without a record.
set +e
env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
  "$TOOL" fleet --reports "$TMP/r" --drift >"$TMP/out" 2>"$TMP/err"
set -e
expect_out_contains "drift: own past: 1 host changed, 1 unchanged, 1 with no earlier run recorded, 1 not known"
expect_out_contains "drift: own past: rebooted: since the last run of boot 5e1f0c21 ("
expect_out_contains "gpu_replaced 0000:2a:00.0: serial "
expect_out_contains "container_recreated container: $OLD -> $NEW"
expect_out_contains "drift: own past: steady: unchanged since this boot's first run ("
expect_out_contains "drift: own past: fresh: no earlier run recorded"
expect_out_contains "drift: own past: nostate: own past not known (no record)"
expect_out_lacks "nostate: unchanged"
exit 0
