# The after-crash story with real stand-in processes: an SGLang launcher and
# 8 schedulers (one per GPU, 75.8 GB each at 0%) in the cgroup of a systemd
# unit with Restart=always. The plan names the unit and its durable fix and
# changes nothing; --yes stops the unit (the owner restarts what a signal stops) (through a stand-in
# systemctl that does what systemd would) and reports the memory released.
# Needs a writable cgroup v2 hierarchy to put the processes in a unit's
# cgroup; skipped (with a message) where there is none.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/story_gpus.sh"

UNIT=gt-e2e-sglang-$$.service
CG=""
for base in /sys/fs/cgroup/unified /sys/fs/cgroup; do
  if [[ -f $base/cgroup.procs ]] && grep -q cgroup2 <(stat -f -c %T $base 2>/dev/null; mount | grep " $base type cgroup2"); then
    CG="$base/system.slice/$UNIT"
    break
  fi
done
if [[ -z "$CG" ]] || ! mkdir -p "$CG" 2>/dev/null; then
  echo "SKIP: no writable cgroup v2 hierarchy to stand in for systemd"
  exit 0
fi
mkdir -p "$TMP/sglang" "$TMP/bin" /run/systemd/system
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
printf '[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --tp 8\nRestart=always\n' \
  >"/run/systemd/system/$UNIT"
cleanup() {
  for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
  sleep 0.2
  rmdir "$CG" 2>/dev/null || true
  rm -f "/run/systemd/system/$UNIT"
  rm -rf "$TMP"
}
trap cleanup EXIT

# Start the launcher inside the unit's cgroup (the subshell moves itself first).
(echo $BASHPID >"$CG/cgroup.procs" && PYTHONPATH="$TMP" exec "$PYTHON" -m sglang.launch_server --tp 8 --pid-file "$TMP/workers") &
launcher=$!
for _ in $(seq 50); do [[ -s "$TMP/workers" ]] && break; sleep 0.1; done
read -r -a workers <"$TMP/workers"
[[ ${#workers[@]} == 8 ]] || fail "launcher did not start 8 workers"

# A stand-in systemctl: `systemctl stop UNIT` terminates the unit's cgroup;
# `systemctl disable UNIT` is recorded.
cat >"$TMP/bin/systemctl" <<SH
#!/bin/bash
echo "\$*" >>"$TMP/systemctl.log"
[[ "\$2" == "$UNIT" ]] || exit 5
case "\$1" in
  stop) kill -TERM \$(cat "$CG/cgroup.procs") ;;
  disable) ;;
  *) exit 5 ;;
esac
exit 0
SH
# One that cannot reach systemd, as in a container without its bus.
mkdir -p "$TMP/nobus"
printf '#!/bin/bash\necho "$*" >>"%s/nobus.log"\necho "Failed to connect to bus: No such file or directory" >&2\nexit 1\n' "$TMP" >"$TMP/nobus/systemctl"
chmod +x "$TMP/bin/systemctl" "$TMP/nobus/systemctl"

for i in $(seq 0 7); do export "W$i=${workers[$i]}"; done
story_gpus_scenario "$TMP/scenario.json" 12.565.57.01

# 1. The plan: one tree rooted at the launcher, the unit named, nothing changed.
run "$TMP/scenario.json" free --gpus all --root / --sample 200ms
expect_rc 1
expect_out_contains "SGLang server, root PID $launcher"
expect_out_contains "holds 564.8 GiB on GPUs 0-7 through 8 processes"
expect_out_contains "systemd unit $UNIT (Restart=always)"
expect_out_contains "\$ ${SUDO}systemctl stop $UNIT"
expect_out_contains "\$ ${SUDO}systemctl disable $UNIT"
expect_out_contains "would do: stop it through its owner (${SUDO}systemctl stop $UNIT)"
kill -0 $launcher || fail "the plan changed something"
[[ ! -e "$TMP/systemctl.log" ]] || fail "the plan ran systemctl"

# 1b. The same GPUs with --signal: the plan signals the launcher and says it was forced.
run "$TMP/scenario.json" free --gpus all --root / --sample 0 --signal --include-busy
expect_out_contains "SIGTERM to PID $launcher"
expect_out_contains "forced by --signal although its owner restarts it (Restart=always)"

# 1c. The owner stop fails: said, with what to do; nothing signalled in its
# place, no SIGKILL claimed, no wait for memory that nothing was done to free.
PATH="$TMP/nobus:$PATH" run "$TMP/scenario.json" free --gpus all --root / --sample 0 --include-busy --yes --grace 5s --json
expect_rc 2
json_check 'any("Failed to connect to bus" in f for f in d["failures"]) and any("nothing was signalled in its place" in f and "systemctl disable" in f for f in d["failures"])' "the failure and what to do"
json_check 'not any("SIGKILL" in a or "SIGTERM" in a for a in d["actions"]) and not any("SIGKILL" in f for f in d["failures"])' "no signal sent or claimed"
grep -qx "stop $UNIT" "$TMP/nobus.log" || fail "the failing systemctl was not run"
! grep -q disable "$TMP/nobus.log" || fail "disable run after a failed stop"
kill -0 $launcher || fail "a failed owner stop was followed by a signal"

# 2. --yes: Restart=always restarts what a signal stops, so the default is
# the owner: the unit is stopped and disabled (the whole durable fix), all 8
# GPUs are freed, each command's outcome reported.
PATH="$TMP/bin:$PATH" run "$TMP/scenario.json" free --gpus all --root / --sample 0 --include-busy --yes --grace 5s --json
expect_rc 0
json_check '"ran systemctl stop '"$UNIT"'" in d["actions"] and "ran systemctl disable '"$UNIT"'" in d["actions"]' "stop and disable both run"
grep -qx "disable $UNIT" "$TMP/systemctl.log" || fail "systemctl disable not run"
json_check 'len(d["gpus"]) == 8 and all(g["free"] and g["used_before_bytes"] == 72290 * 2**20 and g["used_after_bytes"] == 0 for g in d["gpus"])' "8 GPUs freed, 75.8 GB released each"
grep -qx "stop $UNIT" "$TMP/systemctl.log" || fail "systemctl not called as expected"
