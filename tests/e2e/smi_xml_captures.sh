# --smi-xml: every real nvidia-smi -q -x capture gives correct values and a
# verdict, and the one-line nvidia-smi errors give the NVML path's findings.
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
TXT="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-text"

# cap ARGS...: runs the tool (no mock: nothing of this machine is read).
cap() {
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

for f in "$XML"/*.xml; do
  cap --smi-xml "$f" --json
  [[ "$RC" == 0 || "$RC" == 1 ]] || fail "$(basename "$f"): exit $RC: $(cat "$TMP/err")"
  json_check 'd["gpu_count"] == len(d["gpus"]) and d["verdict"] in ("OK", "WARNING")' "$(basename "$f")"
  json_check 'd["kernel_log"] is None and d["pci_devices"] == [] and d["disks"] == []' "capture reads nothing local"
  cap --smi-xml "$f"
  head -1 "$TMP/out" | grep -qE '^(OK|WARNING) ' || fail "verdict first: $(head -1 "$TMP/out")"
done

cap --smi-xml "$XML/pai-tesla-k80-x4-azure-430.26-ecc-retired.xml" --json
json_check 'd["gpu_count"] == 4 and d["driver_version"] == "430.26" and d["cuda_driver_version"] is None'
json_check '[g["ecc"]["errors"]["corrected"]["aggregate"] for g in d["gpus"]] == [7, 34, 0, 0]' "aggregate SBE per GPU"
json_check 'd["gpus"][0]["retired_pages"]["single_bit_ecc_count"] == 1' "retired pages"
json_check 'd["gpus"][0]["memory"]["used_bytes"] == 587 * 1048576' "MiB to bytes"
json_check 'd["gpus"][0]["power"]["draw_w"] == 135.72 and d["gpus"][0]["temperature"]["gpu_c"] == 64'

cap --smi-xml - --json <"$XML/netdata-a100-sxm4-40gb-mig-510.47.03.xml"
json_check 'd["gpus"][0]["mig"]["mode"]["current"] is True and d["gpus"][0]["utilization"]["gpu_pct"] is None' "stdin, MIG"

cap --smi-xml "$XML/telegraf-grid-p4-1q-vgpu-win-513.46.xml" --json
json_check 'd["gpus"][0]["temperature"]["gpu_c"] is None and d["gpus"][0]["fan"]["speed_pct"] is None' "vGPU: unknown is null"
json_check 'all(p["used_memory_bytes"] is None for p in d["gpus"][0]["processes"])' "WDDM process memory null"

check_text() {  # FILE EXIT ID
  cap --smi-xml "$TXT/$1" --json
  expect_rc "$2"
  json_check "[f['id'] for f in d['findings']] == ['$3']" "$1 -> $3"
}
check_text issue-tinygrad-ogkm47-error-driver-library-mismatch-570.txt 2 nvml.version_mismatch
check_text issue-shinecluster50-error-no-driver-comm.txt 2 nvml.driver_not_loaded
check_text issue-marian251-error-gpu-is-lost.txt 2 gpu.lost
check_text issue-synonvidia22-error-unknown-error-nospace.txt 2 gpu.inaccessible

cap --smi-xml "$TMP/nonexistent.xml" --oneline
expect_rc 3
grep -q "cannot open .*nonexistent.xml" "$TMP/err" || fail "names the file: $(cat "$TMP/err")"
echo "not nvidia-smi" >"$TMP/junk.txt"
cap --smi-xml "$TMP/junk.txt"
expect_rc 3
cap --smi-xml "$TMP/junk.txt" --kernel-log x
expect_rc 64
