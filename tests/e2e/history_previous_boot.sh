# History sees the previous boot (issue 23 item 3): the usual cycle is Xid
# 79, a hang, a reboot, then triage, so the Xid is only in the previous
# boot's log (kern.log before btime). It is recorded under that boot's id
# (the journal's boot list; journald writes it undashed), once however often
# gpu-triage runs: GPU 3 with Xid 79 in three previous boots' logs, each
# triage run in the boot after, escalates to critical gpu.repeat_offender,
# and the GPU's one step is the RMA, with no reboot. A journal that names
# no previous boot is a note, never a guess.
source "$(dirname "$0")/common.sh"
UUID=GPU-72713ebd-412b-5245-8469-063aaa6600f0  # GPU 3 of healthy-h100x8, bus 5d
STATE="$TMP/state"

# after N: the boot after boot N: its kern.log ends with boot N's Xid 79
# (before btime 2026-01-01), the journal lists boot N as the previous one.
after() {
  local n="$1"
  shift
  local dir="$TMP/after$n"
  rm -rf "$dir"
  cp -r "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8" "$dir"
  mkdir -p "$dir/root/proc/sys/kernel/random" "$dir/root/var/log" "$dir/root/.gt-fixture/commands"
  echo "1d0c5e2$((n + 1))-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$dir/root/proc/sys/kernel/random/boot_id"
  printf '%s\n' \
    "2025-12-31T20:00:00+00:00 node kernel: NVRM: GPU at PCI:0000:5d:00: $UUID" \
    "2025-12-31T20:00:01+00:00 node kernel: NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
    >"$dir/root/var/log/kern.log"
  if [[ "${NO_PREVIOUS:-}" != 1 ]]; then
    echo "journalctl --list-boots -o json --no-pager -q" >"$dir/root/.gt-fixture/commands/list-boots.cmd"
    printf '[{"index": -1, "boot_id": "1d0c5e2%d4f3a4b6c9d8e7f6a5b4c3d2e", "first_entry": 1767200000000000, "last_entry": 1767225000000000}, {"index": 0, "boot_id": "1d0c5e2%d4f3a4b6c9d8e7f6a5b4c3d2e", "first_entry": 1767225600000000, "last_entry": 1767229200000000}]\n' \
      "$n" "$((n + 1))" >"$dir/root/.gt-fixture/commands/list-boots.out"
  fi
  run "$dir" --sample 0 --json --state-dir "$STATE" "$@"
}
offender() {
  "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(f["severity"] for f in d["findings"] if f["id"] == "gpu.repeat_offender"))' "$TMP/out"
}

after 1
json_check 'any(f["id"] == "gpu.xid.79" and f["severity"] == "warning" and "previous boot" in f["title"] for f in d["findings"])' "boot 1's Xid 79 read from the previous boot's log"
[[ -z "$(offender)" ]] || fail "one boot escalated: $(offender)"
after 1  # the same boot again: boot 1 is recorded once
[[ -z "$(offender)" ]] || fail "a rerun counted the previous boot twice"
after 2
[[ "$(offender)" == warning ]] || fail "two previous boots: '$(offender)', want warning"
after 3
expect_rc 2
[[ "$(offender)" == critical ]] || fail "three previous boots: '$(offender)', want critical"
json_check 'any(f["id"] == "gpu.repeat_offender" and "Xid 79 in 3 boots" in f["title"] and all(("1d0c5e2%d" % n) in f["evidence"] for n in (1, 2, 3)) for f in d["findings"])' "the three previous boots listed"
json_check 'len([s for s in d["plan"] if "gpu.repeat_offender" in s["finding_ids"] or "gpu.xid.79" in s["finding_ids"]]) == 1' "one step for the GPU"
json_check 'all(not any(c.endswith("reboot") for c in s["commands"]) for s in d["plan"])' "no reboot step"
json_check '[s for s in d["plan"] if "gpu.repeat_offender" in s["finding_ids"]][0]["finding_ids"][0] == "gpu.repeat_offender"' "the RMA leads"
"$TOOL" history --state-dir "$STATE" --json >"$TMP/out"
json_check '[b["boot_id"][:8] for b in d["boots"]] == ["1d0c5e21", "1d0c5e22", "1d0c5e23", "1d0c5e24"]' "previous boots recorded in order, dashed"

# No previous boot in the journal: not recorded, said in a note.
rm -rf "$STATE"
NO_PREVIOUS=1 after 5
[[ -z "$(offender)" ]] || fail "escalated without a previous boot id"
json_check 'any("previous boot" in w and "not recorded" in w for w in d["warnings"])' "a note, not a guess"
