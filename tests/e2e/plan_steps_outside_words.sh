# Words from outside in the plan's steps (free's and the report's, one
# function: holders/stop.cc) never run anything when pasted: a systemd unit
# name read from /proc/PID/cgroup (a user's delegated cgroup subtree names
# its folders at will) is one quoted word of `systemctl stop`, and a restart
# loop's command line shown in a step's comment keeps its line breaks
# escaped (the JSON's commands too, where a raw line break would start a
# command of its own). Both failed before the new-operator trial of issues
# 48 and 49.
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

# 1. incident-story's server (sglang.service) in a unit named 'sg;touch${IFS}PWNED;x.service'.
cp -r "$GT_SOURCE_DIR/tests/scenarios/incident-story" "$TMP/sc"
unit='sg;touch${IFS}PWNED;x.service'
for f in "$TMP"/sc/root/proc/*/cgroup; do
  if grep -q sglang.service "$f"; then printf '0::/system.slice/%s\n' "$unit" >"$f"; fi
done
cp "$TMP/sc/root/etc/systemd/system/sglang.service" "$TMP/sc/root/etc/systemd/system/$unit"
cd "$TMP"
for cmd in triage free; do
  if [[ "$cmd" == free ]]; then
    run "$TMP/sc" free --sample 0 --include-busy --no-bundle
  else
    run "$TMP/sc" --no-state
  fi
  expect_out_contains "systemctl stop 'sg;touch\${IFS}PWNED;x.service'"
  grep -E '^ *\$ (sudo )?systemctl ' "$TMP/out" | sed -E 's/^ *\$ (sudo )?//' >"$TMP/steps"
  [[ -s "$TMP/steps" ]] || fail "$cmd: no systemctl step: $(cat "$TMP/out")"
  bash -c 'systemctl() { :; }; source "$1"' _ "$TMP/steps"
  [[ ! -e "$TMP/PWNED" ]] || fail "$cmd: a pasted step ran the unit's name: $(cat "$TMP/steps")"
done

# 2. A restart loop whose script starts with a line break and a command.
cat >"$TMP/loop.sh" <<SH
setsid bash -c \$'#\ntouch $TMP/PWNED2\nwhile :; do sleep 600; done' &
echo \$! >"$TMP/sid"
SH
bash "$TMP/loop.sh"
sid=$(cat "$TMP/sid")
trap 'kill -9 $(in_session "$sid") 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do W0=$(ps -o pid= --ppid "$sid" | tr -d ' '); [[ -n "$W0" ]] && break; sleep 0.1; done
[[ -n "$W0" ]] || fail "the loop started nothing"
export W0
free_scenario "$TMP/scenario.json" W0
run "$TMP/scenario.json" free --root / --sample 0 --include-busy --no-bundle --json
expect_rc 1
json_check 'any("wrapper" in c for t in d["targets"] for c in t["commands"])' "the loop is a wrapper"
json_check 'not any("\n" in c for t in d["targets"] for c in t["commands"])' "a command holds a line break"
exit 0
