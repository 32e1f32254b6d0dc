# The 803 finding's evidence names each other driver library's own release
# (issue 49, the small item): "too" only when it is libcuda's release as
# well. desktop-gpu's tree (module 570.124.04) with libcuda and
# ptxjitcompiler 565.57.01 left by an older install and libnvidia-ml
# 560.35.03 from another.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/desktop-gpu" "$TMP/sc"
d="$TMP/sc/root/usr/lib/x86_64-linux-gnu"
rm -f "$d"/libcuda.so* "$d"/libnvidia-ml.so* "$d"/libnvidia-ptxjitcompiler.so*
# lib BASE RELEASE: the file and its soname link, as the driver installs them.
lib() {
  printf 'stub %s %s\n' "$1" "$2" >"$d/$1.$2"
  ln -s "$1.$2" "$d/$1.1"
}
lib libcuda.so 565.57.01
lib libnvidia-ptxjitcompiler.so 565.57.01
lib libnvidia-ml.so 560.35.03

run "$TMP/sc" --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "cuda.driver_mismatch"][0]'
json_check "'libnvidia-ml.so.1 -> /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.560.35.03 is 560.35.03;' in $f['evidence']" \
  "libnvidia-ml's own release"
json_check "'560.35.03 too' not in $f['evidence']" "not 'too' beside libcuda 565.57.01"
json_check "'libnvidia-ptxjitcompiler.so.565.57.01 is 565.57.01 too' in $f['evidence']" "'too' where it is libcuda's"
echo "PASS: each other library's release said as it is"
