#!/usr/bin/env bash
# NVIDIA's own nvidia-smi (Debian's 535.261.03 and 550.163.01) first on a
# node's PATH is read as its release (sources/procfs/nvidia_smi_binary.h),
# and one beside a driver of another release is explained in one info line
# naming the driver's own nvidia-smi (issue 52 item 2).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for r in r535 r550; do
  v="${NV_VERSION[$r]}"
  smi="$NV/$r/root/usr/lib/nvidia/current/nvidia-smi"
  [[ -f "$smi" ]] || fail "$smi missing (rerun scripts/fetch-nvidia)"
  sc="$TMP/sc-$r"
  rm -rf "$sc"
  cp -r "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8" "$sc"
  mkdir -p "$sc/root/usr/local/bin"
  cp "$smi" "$sc/root/usr/local/bin/nvidia-smi"
  run "$sc" --json --sample 0 --no-state
  json_check "d['nvidia_smi'][0] == {'path': '/usr/local/bin/nvidia-smi', 'release': '$v', 'container': None}"
  f='[f for f in d["findings"] if f["id"] == "driver.nvidia_smi_other_release"]'
  json_check "len($f) == 1 and $f[0]['severity'] == 'info'"
  json_check "'/usr/local/bin/nvidia-smi (first on PATH) is nvidia-smi $v, the driver 550.90.07' in $f[0]['title']"
  # The driver's own copy later on PATH is named as the one to run.
  mkdir -p "$sc/root/usr/bin"
  printf '\x00<TIME STAMP\x00550.90.07\x00<NVSMIV\x00' >"$sc/root/usr/bin/nvidia-smi"
  chmod 755 "$sc/root/usr/bin/nvidia-smi"
  run "$sc" --json --sample 0 --no-state
  json_check "$f[0]['commands'] == ['/usr/bin/nvidia-smi']"
done
echo "PASS: NVIDIA's nvidia-smi 535.261.03 and 550.163.01 read and explained"
