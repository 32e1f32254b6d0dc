# Advice fits who runs it: as root no command says sudo; otherwise the ones
# that need root do. Run both ways where the machine allows it.
source "$(dirname "$0")/common.sh"

no_sudo_as_root() {  # the report in $TMP/out was made as root
  json_check 'not any("sudo " in c for f in d["findings"] for c in f["commands"])' "no sudo as root"
  json_check 'not any("sudo " in c for p in d["plan"] for c in p["commands"])' "no sudo in the plan as root"
  json_check 'any("reboot" in c for p in d["plan"] for c in p["commands"])'
}

if [[ "$(id -u)" == 0 ]]; then
  run one-gpu-lost --json --sample 0
  no_sudo_as_root
  # The same run as nobody says sudo (the mock and fixtures read directly:
  # with-mock's temporary directory is root's).
  SC="$GT_SOURCE_DIR/tests/scenarios/one-gpu-lost"
  if command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$GT_BUILD_DIR/mock_nvml/libnvidia-ml.so.1" 2>/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$SC/scenario.json"; then
    set +e
    MOCK_NVML_SCENARIO="$SC/scenario.json" setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$TOOL" --nvml-lib "$GT_BUILD_DIR/mock_nvml/libnvidia-ml.so.1" --root "$SC/root" \
      --json --sample 0 >"$TMP/out" 2>"$TMP/err"
    set -e
    json_check 'd["findings"][0]["id"] == "gpu.lost"' "the mock answered as nobody"
    json_check 'any(c.startswith("sudo ") for p in d["plan"] for c in p["commands"])' "sudo when not root"
  fi
elif unshare -r true 2>/dev/null; then
  run one-gpu-lost --json --sample 0
  json_check 'any(c.startswith("sudo ") for p in d["plan"] for c in p["commands"])' "sudo when not root"
  set +e
  "$WITH_MOCK" one-gpu-lost unshare -r "$TOOL" --json --sample 0 >"$TMP/out" 2>"$TMP/err"
  set -e
  no_sudo_as_root
else
  run one-gpu-lost --json --sample 0
  json_check 'any(c.startswith("sudo ") for p in d["plan"] for c in p["commands"])' "sudo when not root"
fi
