#!/usr/bin/env bash
# NVIDIA's own nvidia-smi (535.261.03, 550.163.01) on this machine without
# the driver: its real output, read back wherever the tool reads nvidia-smi
# output. As a capture (--smi-xml) it is nvml.driver_not_loaded, with the
# PCI bus unknown; through the fleet's gather (a fake ssh running the real
# gather script with NVIDIA's binary first on PATH) a host with no NVIDIA
# device on its bus is "no NVIDIA GPU on this machine", not modprobe.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for r in r535 r550; do
  set +e
  LD_LIBRARY_PATH="$NV/$r/lib" "$NV/$r/bin/nvidia-smi" -q -x >"$TMP/smi_$r.txt" 2>&1
  rc=$?
  set -e
  [[ $rc == 9 ]] || fail "$r: NVIDIA's nvidia-smi exited $rc, want 9 (no driver): $(cat "$TMP/smi_$r.txt")"
  grep -q "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver" \
    "$TMP/smi_$r.txt" || fail "$r: unexpected output: $(cat "$TMP/smi_$r.txt")"

  set +e
  "$TOOL" --smi-xml "$TMP/smi_$r.txt" --json >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  expect_rc 2
  json_check '[f["id"] for f in d["findings"]] == ["nvml.driver_not_loaded"]'
  json_check '"PCI bus was not read" in d["findings"][0]["evidence"]'
  json_check 'd["findings"][0]["commands"][0] == "lspci -d 10de: -nn"'
done

# The fleet: the real gather script, run here by the fake ssh, with NVIDIA's
# nvidia-smi first on PATH. It reads this machine's /sys: only meaningful
# where there is no NVIDIA GPU and no nvidia module (this test's machines).
has_nvidia_gpu() {
  [[ -e /sys/module/nvidia ]] && return 0
  grep -qs 0x10de /sys/bus/pci/devices/*/vendor
}
if has_nvidia_gpu; then
  echo "this machine has an NVIDIA GPU or module: the fleet part needs one without"
  exit 0
fi
export FAKE_SSH_DIR="$TMP/hosts"
for r in r535 r550; do
  mkdir -p "$FAKE_SSH_DIR/cpu-$r/bin"
  touch "$FAKE_SSH_DIR/cpu-$r/exec"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$NV/$r/lib" "$NV/$r/bin/nvidia-smi" \
    >"$FAKE_SSH_DIR/cpu-$r/bin/nvidia-smi"
  chmod +x "$FAKE_SSH_DIR/cpu-$r/bin/nvidia-smi"
done
set +e
"$TOOL" --ssh-command "$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh" --host-timeout 20s \
  --host cpu-r535,cpu-r550 --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 3
json_check 'len(d["hosts"]) == 2'
json_check 'all(h["verdict"] == "UNKNOWN" and h["via"] == "nvidia-smi" for h in d["hosts"])'
json_check 'all(h["report"]["nvml"]["error"].startswith("no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, nvidia-smi installed (nvidia-smi: NVIDIA-SMI has failed") for h in d["hosts"])'
json_check 'all(h["report"]["findings"] == [] for h in d["hosts"])'
