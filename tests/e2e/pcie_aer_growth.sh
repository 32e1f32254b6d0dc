# PCIe AER counters across runs (issue 38 item 3): pcie-aer-fatal's root
# port above GPUs 2 and 3 counted a fatal error; a second run after it and
# a switch port counted more says how many are new since the last run; an
# unchanged rerun says none; after a reboot the counters start again at
# zero and nothing is claimed of the lower counts.
source "$(dirname "$0")/common.sh"
NODE="$TMP/node"
cp -r "$GT_SOURCE_DIR/tests/scenarios/pcie-aer-fatal" "$NODE"
STATE="$TMP/aer-state"
RP="$NODE/root/sys/devices/pci0000:48/0000:48:01.0"
SW="$NODE/root/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0"
[[ -L "$NODE/root/sys/bus/pci/devices/0000:4c:00.0" ]] || fail "the copy lost the sysfs links"

# counters FILE TOTAL_LINE NAME=N...: writes an aer_dev_* file as the kernel does.
counters() {
  local file="$1" total="$2" sum=0 kv
  shift 2
  : >"$file"
  for kv in "$@"; do
    echo "${kv%=*} ${kv#*=}" >>"$file"
    sum=$((sum + ${kv#*=}))
  done
  echo "$total $sum" >>"$file"
}
findings() {  # id: "severity|title|evidence" per finding of that id
  "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("\n".join(f["severity"]+"|"+f["title"]+"|"+f["evidence"] for f in d["findings"] if f["id"]==sys.argv[2]))' "$TMP/out" "$1"
}

run "$NODE" --sample 0 --json --state-dir "$STATE"
expect_rc 2
fatal=$(findings pcie.aer_fatal)
[[ "$fatal" == "critical|Root port 0000:48:01.0 above the GPU at 0000:4c:00.0 and the GPU at 0000:5d:00.0: 1 fatal PCIe error (AER) since boot|"* ]] ||
  fail "first run: $fatal"
[[ "$fatal" == *"TOTAL_ERR_FATAL 1 in aer_dev_fatal (SDES 1)"* ]] || fail "no counts: $fatal"
[[ "$fatal" != *"since the last run"* ]] || fail "a first run has no last run: $fatal"
[[ -z "$(findings pcie.aer_correctable_growing)" ]] || fail "a stable correctable count was judged"
"$PYTHON" - "$STATE/history.json" <<'PY' || fail "the record keeps no AER totals"
import json, sys
aer = {r["bus_id"]: r for r in json.load(open(sys.argv[1]))["aer"]}
assert aer["0000:48:01.0"]["fatal"] == 1 and aer["0000:17:00.0"]["correctable"] == 4, aer
assert aer["0000:4c:00.0"]["fatal"] == 0 and len(aer) == 8 + 4 * 4, len(aer)
PY

# More errors: the root port one more fatal, the switch port 500 correctable.
counters "$RP/aer_dev_fatal" TOTAL_ERR_FATAL SDES=2
echo 2 >"$RP/aer_rootport_total_err_fatal"
counters "$SW/aer_dev_correctable" TOTAL_ERR_COR RxErr=503 BadTLP=1
run "$NODE" --sample 0 --json --state-dir "$STATE"
fatal=$(findings pcie.aer_fatal)
[[ "$fatal" == *"2 fatal PCIe errors (AER) since boot"*"1 new since the last run at "* ]] ||
  fail "second run: no delta: $fatal"
grow=$(findings pcie.aer_correctable_growing)
[[ "$grow" == "warning|PCIe bridge 0000:17:00.0 above GPU 0 (0000:19:00.0): PCIe correctable errors (AER) growing: 500 new since the last run at "* ]] ||
  fail "second run: correctable growth: $grow"

# Nothing new: the fatal count is still said, with none new; no growth.
run "$NODE" --sample 0 --json --state-dir "$STATE"
[[ "$(findings pcie.aer_fatal)" == *"0 new since the last run"* ]] || fail "rerun: $(findings pcie.aer_fatal)"
[[ -z "$(findings pcie.aer_correctable_growing)" ]] || fail "rerun: growth claimed: $(findings pcie.aer_correctable_growing)"

# A reboot: the counters start again at zero; lower counts are no delta.
echo "9f1e2d3c-0000-4000-8000-000000000002" >"$NODE/root/proc/sys/kernel/random/boot_id"
counters "$RP/aer_dev_fatal" TOTAL_ERR_FATAL SDES=0
echo 0 >"$RP/aer_rootport_total_err_fatal"
counters "$SW/aer_dev_correctable" TOTAL_ERR_COR RxErr=2
run "$NODE" --sample 0 --json --state-dir "$STATE"

[[ -z "$(findings pcie.aer_fatal)$(findings pcie.aer_correctable_growing)" ]] ||
  fail "after the reboot: $(findings pcie.aer_fatal) $(findings pcie.aer_correctable_growing)"
exit 0
