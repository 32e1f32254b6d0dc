#!/usr/bin/env bash
# NVIDIA's own libcuda.so (libcuda1 535.261.03 and 550.163.01 from Debian
# non-free) placed in a fixture root's library directory is read as its
# release: by the file name when libcuda.so.1 links to libcuda.so.X.Y.Z, and
# by its contents (the application-profile path libcuda carries) when the
# file itself is named libcuda.so.1.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# triage ROOT LIB: the tool's JSON for the root, with NVIDIA's NVML; stdout in $TMP/out.
triage() {
  set +e
  GPU_TRIAGE_ROOT="$1" timeout -k 2 30 "$TOOL" --nvml-lib "$2" --timeout 5s --sample 0 --no-state \
    --json >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  [[ $RC -lt 124 ]] || fail "exit $RC (timeout or signal): $(cat "$TMP/err")"
}

lib_json='[l for l in d["cuda"]["loaders"][0]["libraries"] if l["soname"] == "libcuda.so.1"][0]'
for r in r535 r550; do
  v="${NV_VERSION[$r]}"
  real_lib="$(readlink -f "$NV/$r/lib/libcuda.so.1")"
  [[ -f "$real_lib" && "$(basename "$real_lib")" == "libcuda.so.$v" ]] ||
    fail "$r: $NV/$r/lib/libcuda.so.1 should lead to libcuda.so.$v (rerun scripts/fetch-nvidia)"
  root="$TMP/root-$r"
  rm -rf "$root"
  cp -r "$GT_SOURCE_DIR/tests/scenarios/driverless-vm/root" "$root"
  d="$root/usr/lib/x86_64-linux-gnu"
  mkdir -p "$d"
  cp "$real_lib" "$d/libcuda.so.$v"
  ln -s "libcuda.so.$v" "$d/libcuda.so.1"
  triage "$root" "$NV/$r/lib/libnvidia-ml.so.1"
  json_check "$lib_json[\"version\"] == \"$v\" and $lib_json[\"version_from\"] == \"file name\""
  json_check "$lib_json[\"file\"] == \"/usr/lib/x86_64-linux-gnu/libcuda.so.$v\""

  rm "$d/libcuda.so.1"
  mv "$d/libcuda.so.$v" "$d/libcuda.so.1"
  triage "$root" "$NV/$r/lib/libnvidia-ml.so.1"
  json_check "$lib_json[\"version\"] == \"$v\" and $lib_json[\"version_from\"] == \"contents\""
  rm -rf "$root"
done
echo "PASS: NVIDIA's libcuda 535.261.03 and 550.163.01 read by file name and by contents"
