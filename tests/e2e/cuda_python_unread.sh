# Issue 48 item 10: `--python PATH` whose torch cannot be read (its
# version.py a FIFO, a link loop, unparsable) or is a CPU-only build is
# said, naming --python, and the run is not OK (exit 1), never silence.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8" "$TMP/sc"
site="$TMP/sc/root/opt/job/lib/python3.11/site-packages/torch"
mkdir -p "$TMP/sc/root/opt/job/bin" "$site"
: >"$TMP/sc/root/opt/job/bin/python"
# check WHAT ID: the run says ID for --python (its title names it), exit 1.
check() {
  run "$TMP/sc" --json --sample 0 --no-state --no-kernel-log --python /opt/job/bin/python
  expect_rc 1
  json_check '[f["id"] for f in d["findings"] if f["severity"] != "ok"] == ["'"$2"'"]' "$1"
  json_check 'any(f["title"].startswith("--python /opt/job/bin/python") for f in d["findings"])' "$1: names --python"
}
mkfifo "$site/version.py"
check "a FIFO" cuda.runtime_unknown
run "$TMP/sc" --sample 0 --no-state --no-kernel-log --python /opt/job/bin/python
expect_out_contains "--python /opt/job/bin/python: the CUDA release its stack was built for could not be read"
rm "$site/version.py"
ln -s version.py "$site/version.py"
check "a link loop" cuda.runtime_unknown
rm "$site/version.py"
printf "__version__ = '2.3.0'\ncuda = get_cuda()\n" >"$site/version.py"
check "unparsable" cuda.runtime_unknown
printf "__version__ = '2.3.0+cpu'\ncuda = None\n" >"$site/version.py"
check "a CPU-only build" cuda.runtime_cpu_only
