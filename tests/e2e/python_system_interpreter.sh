# The job's torch where a system interpreter keeps it (issue 49 item 3):
# Debian's and Ubuntu's /usr/local/lib/python3.X/dist-packages (pip as
# root, most CUDA base images) and the RHEL family's
# lib64/python3.X/site-packages, found as the interpreter's own search path
# finds them (sources/cuda/python_search_path.h). A torch built for CUDA 13.0
# on the 12.4 driver of healthy-h100x8 is refused (cuda.runtime_too_new),
# never called ready.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8" "$TMP/sc"
r="$TMP/sc/root"
torch_py() { mkdir -p "$1/torch" && printf "__version__ = '2.9.0+cu130'\ncuda = '13.0'\n" >"$1/torch/version.py"; }

# Debian / Ubuntu: python3 -> python3.10, torch in /usr/local's dist-packages.
mkdir -p "$r/usr/bin" "$r/usr/lib/python3/dist-packages"
: >"$r/usr/bin/python3.10"
ln -s python3.10 "$r/usr/bin/python3"
torch_py "$r/usr/local/lib/python3.10/dist-packages"
run "$TMP/sc" --json --sample 0 --no-state --python /usr/bin/python3
expect_rc 2
f='[f for f in d["findings"] if f["id"] == "cuda.runtime_too_new"]'
json_check "len($f) == 1 and '/usr/local/lib/python3.10/dist-packages/torch/version.py' in $f[0]['title']" \
  "Debian's dist-packages: torch for CUDA 13.0 on a 12.4 driver"

# RHEL family: /usr/lib64/python3.9/site-packages.
rm -rf "$r/usr/bin" "$r/usr/local/lib/python3.10" "$r/usr/lib/python3"
mkdir -p "$r/usr/bin"
: >"$r/usr/bin/python3.9"
torch_py "$r/usr/lib64/python3.9/site-packages"
run "$TMP/sc" --json --sample 0 --no-state --python /usr/bin/python3.9
expect_rc 2
json_check "len($f) == 1 and '/usr/lib64/python3.9/site-packages/torch/version.py' in $f[0]['title']" \
  "RHEL's lib64 site-packages"
echo "PASS: torch found in dist-packages and lib64 as the interpreter finds it"
