#!/usr/bin/env bash
# NVIDIA's own libcuda1 535.261.03 (Debian bookworm non-free) as an image's
# forward-compatibility library on an RTX 4090 workstation (the scenario
# desktop-gpu, copied): known by what it is, not where it sits (issue 49
# item 1). The container toolkits before 2025 bind-mounted the image's
# /usr/local/cuda-12.2/compat/libcuda.so.535.261.03 over the standard
# library directory; a fixture cannot mount, so the tree holds the file's
# bytes there and /proc/self/mountinfo the toolkit's line. Under a 570
# module it is an older compat library (803, docs/physics.md R2); under a
# 525 module a newer one on a GeForce board (804). Each has the compat
# fix (remove the compat library), never "reinstall the driver". A third
# tree holds the file as libcuda.so.1 alone (no mount, no compat directory).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

v="${NV_VERSION[r535]}"
real_lib="$(readlink -f "$NV/r535/lib/libcuda.so.1")"
[[ -f "$real_lib" ]] || fail "$NV/r535/lib/libcuda.so.1 is missing (rerun scripts/fetch-nvidia)"
compat="/usr/local/cuda-12.2/compat/libcuda.so.$v"
libdir=/usr/lib/x86_64-linux-gnu

# make_tree MODULE HOW: a copy of desktop-gpu with kernel module MODULE and
# NVIDIA's libcuda 535 in the library directory, a compat one by HOW:
# "mount" (a mountinfo bind-mount line, no compat directory in the tree) or
# "copy" (the same bytes in /usr/local/cuda-12.2/compat, no mount).
make_tree() {
  local module="$1" how="$2" s="$TMP/s" old=570.124.04
  rm -rf "$s"
  cp -r "$GT_SOURCE_DIR/tests/scenarios/desktop-gpu" "$s"
  if [[ "$module" != "$old" ]]; then
    sed -i "s/$old/$module/g; s/\"cuda_driver_version\": [0-9]*/\"cuda_driver_version\": 12020/" \
      "$s/scenario.json"
    grep -rlF "$old" "$s/root" | xargs sed -i "s/$old/$module/g"
    for f in "$s/root$libdir"/*."$old"; do mv "$f" "${f%."$old"}.$module"; done
    for l in libnvidia-ml.so.1 libnvidia-ptxjitcompiler.so.1; do
      ln -sfn "${l%.1}.$module" "$s/root$libdir/$l"
    done
  fi
  rm -f "$s/root$libdir"/libcuda.so*
  if [[ "$how" == bytes ]]; then
    # The image copied the compat file over libcuda.so.1 and deleted its
    # compat directory: only the release string in its bytes tells it.
    cp "$real_lib" "$s/root$libdir/libcuda.so.1"
    return
  fi
  cp "$real_lib" "$s/root$libdir/libcuda.so.$v"
  ln -s "libcuda.so.$v" "$s/root$libdir/libcuda.so.1"
  if [[ "$how" == mount ]]; then
    mkdir -p "$s/root/proc/self"
    printf '%s\n' \
      "1290 1180 0:52 / / rw,relatime master:419 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/docker/overlay2/l/B,upperdir=/var/lib/docker/overlay2/C/diff,workdir=/var/lib/docker/overlay2/C/work" \
      "1310 1290 0:52 $compat $libdir/libcuda.so.$v ro,nosuid,nodev,relatime master:419 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/docker/overlay2/l/B" \
      >"$s/root/proc/self/mountinfo"
  else
    mkdir -p "$s/root${compat%/*}"
    cp "$real_lib" "$s/root$compat"
  fi
}

lib='[l for l in d["cuda"]["loaders"][0]["libraries"] if l["soname"] == "libcuda.so.1"][0]'
for how in mount copy; do
  make_tree 570.124.04 "$how"
  run "$TMP/s" --json --sample 0 --no-state
  json_check "$lib['version'] == '$v' and $lib['compat']" "$how: NVIDIA's libcuda 535 known as a compat library"
  if [[ "$how" == mount ]]; then
    json_check "'a bind mount of $compat' in $lib['compat_from']"
  else
    json_check "$lib['compat_from'] == 'the same file (size and bytes) as $compat'"
  fi
  f='[f for f in d["findings"] if f["id"] == "cuda.driver_mismatch"][0]'
  json_check "'cuInit 803' in $f['title'] and 'forward-compatibility libcuda' in $f['action'] and 'not newer than the kernel module 570.124.04' in $f['action']" \
    "$how: an older compat library is 803 with the compat fix"
  json_check "not any(f['id'] == 'cuda.compat_unsupported' for f in d['findings'])"

  make_tree 525.147.05 "$how"
  run "$TMP/s" --json --sample 0 --no-state
  f='[f for f in d["findings"] if f["id"] == "cuda.compat_unsupported"][0]'
  json_check "$f['severity'] == 'critical' and 'cuInit 804' in $f['title'] and 'NVIDIA GeForce RTX 4090' in $f['title']" \
    "$how: a newer compat library on a GeForce board is 804"
  json_check "'/usr/local/cuda*/compat' in $f['action'] and 'reinstall' not in $f['action']"
  json_check "not any(f['id'] == 'cuda.driver_mismatch' for f in d['findings'])" "804, not 803"
done
# No mount, no compat directory, a plain libcuda.so.1: known by the release
# in its bytes, newer than the module while libnvidia-ml is the module's own
# (docs/physics.md R2a). Before issue 49's item 1 this was called an upgrade
# without a reboot (803, "reboot").
make_tree 525.147.05 bytes
run "$TMP/s" --json --sample 0 --no-state
json_check "$lib['version'] == '$v' and $lib['version_from'] == 'contents'" \
  "bytes: the release read from NVIDIA's libcuda itself"
f='[f for f in d["findings"] if f["id"] == "cuda.compat_unsupported"][0]'
json_check "'cuInit 804' in $f['title'] and 'its release $v (from its contents) is newer than the kernel module 525.147.05' in $f['evidence']" \
  "bytes: a copied compat library on a GeForce board is 804"
json_check "'any copy of its libcuda in the library directory' in $f['action'] and 'reboot' not in $f['action'].lower()"
json_check "not any(f['id'] == 'cuda.driver_mismatch' for f in d['findings'])" "804, not 803"
echo "PASS: NVIDIA's libcuda 535 as a bind-mounted, copied or byte-identified compat library: 803 under 570, 804 on GeForce under 525"
