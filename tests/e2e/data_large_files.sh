# Files larger than the 1 MiB read buffer: records, deflate streams and
# gzip streams that span many chunks of the deep pass.
source "$(dirname "$0")/common.sh"
D="$TMP/big"; mkdir -p "$D"
"$PYTHON" - "$D" <<'PY'
import gzip, os, random, sys, zipfile
d = sys.argv[1]
rng = random.Random(1)
blob = bytes(rng.getrandbits(8) for _ in range(3 << 20))
with zipfile.ZipFile(os.path.join(d, "data_0.bin"), "w", zipfile.ZIP_STORED) as z:
    z.writestr("a/x", blob); z.writestr("a/y", blob[::-1])
with zipfile.ZipFile(os.path.join(d, "data_1.npz"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("h.npy", b"\x93NUMPY\x01\x00v\x00{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % len(blob) + b" " * 54 + b"\n" + blob)
with open(os.path.join(d, "data_2.ckpt.gz"), "wb") as f:
    f.write(gzip.compress(blob))
PY
set +e
"$TOOL" data "$D" --deep --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 0
json_check 'd["bad"] == [] and d["summary"]["bytes_read"] >= d["summary"]["bytes"]' "intact, every byte read"
# Damage far past the first chunk.
printf '\x5a' | dd of="$D/data_0.bin" bs=1 seek=$((5 << 20)) conv=notrunc status=none
size=$(stat -c %s "$D/data_1.npz")
printf '\x5a\x5a\x5a\x5a' | dd of="$D/data_1.npz" bs=1 seek=$((size - 200000)) conv=notrunc status=none
head -c $((2 << 20)) "$D/data_2.ckpt.gz" > "$TMP/t" && mv "$TMP/t" "$D/data_2.ckpt.gz"
set +e
"$TOOL" data "$D" --deep --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 1
json_check 'sorted((b["path"].split("/")[-1], b["problem"]) for b in d["bad"]) == [("data_0.bin", "checksum"), ("data_1.npz", "checksum"), ("data_2.ckpt.gz", "truncated")]'
json_check 'd["bad"][0]["message"].startswith("record a/y: CRC32 want")'
# Quick mode: the stored and deflated records' damage is invisible without
# reading them, and a gzip over 1 MiB is not inflated (its trailer length
# is only checked for plausibility), so at most the gzip is reported
# (--recent 0: these fresh files would otherwise all get the deep check).
set +e
"$TOOL" data "$D" --recent 0 --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
json_check 'all(b["path"].endswith("data_2.ckpt.gz") and b["problem"] == "truncated" for b in d["bad"])'
