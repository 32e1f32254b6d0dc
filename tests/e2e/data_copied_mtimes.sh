# After `cp -r` every mtime is the copy's (issue 14): the finish-time
# estimate must not read "3,589,200 samples/h ... about 35 s". The rate is
# unknown from such mtimes and said so; --rate gives it; the original
# tree's rate still comes from its mtimes.
source "$(dirname "$0")/common.sh"
A="$TMP/a"
"$PYTHON" - "$A" <<'PY'
import os, sys
out = sys.argv[1]
os.makedirs(out)
header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"
header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\x00\x00\x80\x3f"
for i in range(40):  # written by the job at 1.09 samples/s
    p = os.path.join(out, f"sample_{i}.npy")
    open(p, "wb").write(npy)
    t = 1_700_000_000 + i / 1.09
    os.utime(p, (t, t))
PY
cp -r "$A" "$TMP/b"
set +e
"$TOOL" data "$A" --expect 100 --json >"$TMP/out"; RC=$?
set -e
json_check 'd["progress"]["mtimes_clustered"] is False and d["progress"]["rate_source"] == "mtimes" and abs(d["progress"]["rate_samples_per_hour"] - 3924) < 100' "the job's own mtimes"
set +e
"$TOOL" data "$TMP/b" --expect 100 --json >"$TMP/out"; RC=$?
set -e
json_check 'd["progress"]["mtimes_clustered"] is True and d["progress"]["rate_samples_per_hour"] is None and d["progress"]["time_to_finish_s"] is None and d["progress"]["last_write"] is None' "copied: rate unknown"
set +e
"$TOOL" data "$TMP/b" --expect 100 >"$TMP/out"; RC=$?
set -e
expect_out_contains "(a copy or restore set them); give it with --rate N/s"
set +e
"$TOOL" data "$TMP/b" --expect 100 --rate 1.09/s --json >"$TMP/out"; RC=$?
set -e
json_check 'd["progress"]["rate_source"] == "--rate" and abs(d["progress"]["time_to_finish_s"] - 60 / 1.09) < 1' "--rate 1.09/s: 60 samples in 55 s"
json_check 'd["progress"]["bytes_needed"] == 60 * 132' "disk headroom still checked"
set +e
"$TOOL" data "$TMP/b" --rate fast >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 64
