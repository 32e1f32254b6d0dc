# Memory across boots (issue 15 item 4): GPU 3 logs Xid 79 in three boots
# (a copy of the scenario per boot, each with its own boot_id): the second
# run warns, the third escalates to RMA listing the boots; a rerun in the
# same boot does not count twice; `history --clear --gpu UUID` resets it.
# A state directory that cannot be written, and a corrupt record, never
# fail the report.
source "$(dirname "$0")/common.sh"
UUID=GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98  # GPU 3 of repeat-xid79
STATE="$TMP/state"

# boot N: runs the scenario copied with boot id N; extra args follow.
boot() {
  local n="$1"
  shift
  local dir="$TMP/boot$n"
  [[ -d "$dir" ]] || cp -r "$GT_SOURCE_DIR/tests/scenarios/repeat-xid79" "$dir"
  echo "1d0c5e2${n}-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$dir/root/proc/sys/kernel/random/boot_id"
  run "$dir" --sample 0 --json "$@"
}
offender() {
  "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(f["severity"] for f in d["findings"] if f["id"] == "gpu.repeat_offender"))' "$TMP/out"
}

boot 1 --state-dir "$STATE"
expect_rc 2
[[ -z "$(offender)" ]] || fail "first boot escalated: $(offender)"
json_check 'd["history"]["boots"] == [] and d["warnings"] == []' "an empty record before the first run"
boot 1 --state-dir "$STATE"  # the same boot again
[[ -z "$(offender)" ]] || fail "a rerun in the same boot counted twice"
boot 2 --state-dir "$STATE"
[[ "$(offender)" == warning ]] || fail "second boot: '$(offender)', want warning"
boot 3 --state-dir "$STATE"
expect_rc 2
[[ "$(offender)" == critical ]] || fail "third boot: '$(offender)', want critical"
json_check 'any(f["id"] == "gpu.repeat_offender" and f["subject"]["gpu_uuid"] == "'"$UUID"'" and "Xid 79 in 3 boots" in f["title"] and "RMA" in f["title"] and all(("1d0c5e2%d" % n) in f["evidence"] for n in (1, 2, 3)) for f in d["findings"])' "RMA with the three boots listed"
json_check 'any(s["finding_ids"][0] == "gpu.repeat_offender" and not any(c.endswith("reboot") for c in s["commands"]) for s in d["plan"])' "the GPU's one step is the RMA, no reboot"
json_check 'not any("nvidia-smi -q -i" in c for s in d["plan"] for c in s["commands"])' "a lost GPU: no nvidia-smi -q -i"

"$TOOL" history --state-dir "$STATE" >"$TMP/out"
expect_out_contains "$UUID"
expect_out_contains "gpu.xid.79 in 3 boots"
"$TOOL" history --state-dir "$STATE" --json >"$TMP/out"
json_check 'len(d["boots"]) == 3 and d["gpus"][0]["findings"][0]["boot_ids"][2].startswith("1d0c5e23")'

"$TOOL" history --state-dir "$STATE" --clear --gpu "$UUID" >"$TMP/out"
expect_out_contains "Cleared the record of $UUID"
boot 4 --state-dir "$STATE"
[[ -z "$(offender)" ]] || fail "escalated after --clear --gpu: $(offender)"

# No state: --no-state is silent; a directory that cannot be written says
# so in a warning, and the report and exit code are those without it.
boot 4 --no-state
expect_rc 2
json_check 'd["history"] is None and d["warnings"] == []'
if [[ "$(id -u)" != 0 ]]; then
  mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
  boot 4 --state-dir "$TMP/ro"
else
  : >"$TMP/not-a-dir"  # root writes anywhere: a file where the directory should be
  boot 4 --state-dir "$TMP/not-a-dir"
fi
expect_rc 2
json_check 'd["history"] is None and any("history across boots not kept" in w for w in d["warnings"])' "a warning says what is missing"

# A corrupt record is set aside, with a warning, and the run goes on.
printf '{"schema": "gpu-triage/history", "boots": [' >"$STATE/history.json"
boot 5 --state-dir "$STATE"
expect_rc 2
json_check 'any("set aside as" in w for w in d["warnings"]) and d["history"]["boots"] == []'
ls "$STATE" | grep -q '^history.json.corrupt-' || fail "no history.json.corrupt-* in $STATE"
"$TOOL" history --state-dir "$STATE" --json >"$TMP/out"
json_check 'len(d["boots"]) == 1' "the record starts afresh"
