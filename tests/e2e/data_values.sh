# --values: a NaN in a bfloat16 torch storage, +Inf in a float16 safetensors
# tensor and a NaN in a float32 .npy are each `non-finite`, bad and in the
# resume list (the sample); --allow-non-finite counts them but keeps the files intact;
# no intact real fixture has a non-finite value.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real"
D="$TMP/out_dir"
mkdir -p "$D/rows_0-2000"

# Sample 0 intact and sample 1 with a bf16 NaN: written by torch when it is
# installed, else the real SpecForge file with a NaN patched into its bf16
# storage and its CRC32 put right (so that only the value is wrong).
"$PYTHON" - "$D/rows_0-2000" "$REAL/torch/specforge/rows_0-4/data_0.ckpt" <<'PY'
import os, struct, sys, zlib, shutil
out, real = sys.argv[1], sys.argv[2]
try:
    import torch
    for i in range(2):
        h = torch.randn(1, 16, 32).to(torch.bfloat16)
        if i == 1:
            h[0, 3, 5] = float("nan")
        torch.save({"input_ids": torch.arange(16), "loss_mask": torch.ones(16, dtype=torch.long),
                    "hidden_state": h, "aux_hidden_state": torch.randn(1, 16, 96).to(torch.bfloat16)},
                   os.path.join(out, f"data_{i}.ckpt"))
    sys.exit(0)
except ImportError:
    pass
b = bytearray(open(real, "rb").read())
shutil.copy(real, os.path.join(out, "data_0.ckpt"))
eocd = b.rfind(b"PK\x05\x06")
cd_size, cd_off = struct.unpack_from("<II", b, eocd + 12)
if cd_off == 0xFFFFFFFF:  # zip64: the locator points at the zip64 EOCD
    z64 = struct.unpack_from("<Q", b, b.rfind(b"PK\x06\x07") + 8)[0]
    cd_off = struct.unpack_from("<Q", b, z64 + 48)[0]
pos = cd_off
while b[pos:pos + 4] == b"PK\x01\x02":
    n, m, k = struct.unpack_from("<HHH", b, pos + 28)
    name = bytes(b[pos + 46:pos + 46 + n]).decode()
    size = struct.unpack_from("<I", b, pos + 20)[0]
    local = struct.unpack_from("<I", b, pos + 42)[0]
    # data.pkl names storage "2" as BFloat16 for hidden_state in this file.
    if name.endswith("/data/2"):
        ln, le = struct.unpack_from("<HH", b, local + 26)
        start = local + 30 + ln + le
        b[start + 10:start + 12] = b"\xc0\x7f"  # a bfloat16 quiet NaN
        crc = zlib.crc32(bytes(b[start:start + size])) & 0xFFFFFFFF
        struct.pack_into("<I", b, pos + 16, crc)
        struct.pack_into("<I", b, start + size + 4, crc)  # the data descriptor
    pos += 46 + n + m + k
open(os.path.join(out, "data_1.ckpt"), "wb").write(b)
PY

# Sample 2: safetensors with +Inf in a float16 tensor (the format by hand:
# u64 header length, JSON header, data).
"$PYTHON" - "$D/rows_0-2000/data_2.safetensors" <<'PY'
import json, struct, sys
vals = [0x3C00] * 64
vals[9] = 0x7C00  # +Inf
data = struct.pack("<64H", *vals)
hdr = json.dumps({"h": {"dtype": "F16", "shape": [64], "data_offsets": [0, len(data)]}}).encode()
hdr += b" " * ((8 - len(hdr) % 8) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(hdr)) + hdr + data)
PY

# Sample 3: .npy float32 with a NaN (NumPy when installed, else by hand).
"$PYTHON" - "$D/rows_0-2000/data_3.npy" <<'PY'
import struct, sys
try:
    import numpy as np
    a = np.ones((8, 8), dtype=np.float32)
    a[2, 2] = np.nan
    np.save(sys.argv[1], a)
except ImportError:
    d = "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }"
    d += " " * (63 - (10 + len(d)) % 64) + "\n"
    vals = [1.0] * 64
    vals[18] = float("nan")
    open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() +
                                  struct.pack("<64f", *vals))
PY

# Without --values, nothing is wrong with these files.
set +e
"$TOOL" data "$D" --deep --layout specforge --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0
json_check 'd["bad"] == [] and d["values"] is None' "--deep alone looks at no value"

set +e
"$TOOL" data "$D" --values --layout specforge --resume-list "$TMP/resume" --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 1
# Only the .ckpt files are SpecForge samples; the other two are bad files without an index.
json_check 'sorted(b["path"].rsplit("/", 1)[1] for b in d["bad"]) == ["data_1.ckpt", "data_2.safetensors", "data_3.npy"]' "three bad files"
json_check 'all(b["problem"] == "non-finite" for b in d["bad"])' "bad as non-finite"
json_check '[b["message"] for b in d["bad"] if b["index"] == 1][0].startswith("1 NaN in ")' "bf16 NaN"
json_check '[b["message"] for b in d["bad"] if b["path"].endswith(".safetensors")][0].startswith("1 +Inf in 64 ")' "f16 +Inf"
json_check 'd["values"]["nan"] == 2 and d["values"]["pos_inf"] == 1 and d["values"]["files_non_finite"] == 3' "value totals"
json_check 'd["values"]["files_counted"] == 4 and d["values"]["uncounted_tensors"] == 4' "files and int tensors"
json_check 'd["mode"] == "deep" and d["values"]["allow_non_finite"] is False'
[[ "$(cat "$TMP/resume")" == "1" ]] || fail "resume list: $(cat "$TMP/resume")"

# The text report names the problem code.
set +e
"$TOOL" data "$D" --values --layout specforge >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 1
expect_out_contains "non-finite"
expect_out_contains "values: "

# --allow-non-finite: counted, reported, but intact and not to redo.
set +e
"$TOOL" data "$D" --values --allow-non-finite --layout specforge --resume-list "$TMP/resume" \
  --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0
json_check 'd["bad"] == [] and d["resume"] == [] and d["values"]["nan"] == 2' "allowed"
json_check 'sorted(f["path"].rsplit("/", 1)[1] for f in d["values"]["files"]) == ["data_1.ckpt", "data_2.safetensors", "data_3.npy"]'
[[ ! -s "$TMP/resume" ]] || fail "resume list not empty: $(cat "$TMP/resume")"

# --allow-non-finite needs --values.
set +e
"$TOOL" data "$D" --allow-non-finite >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 64

# No intact real fixture has a non-finite value (the .ckpt.gz ones are not decoded).
for sub in torch/specforge torch/specforge-gz torch/eagle torch/speculators torch/legacy numpy; do
  set +e
  "$TOOL" data "$REAL/$sub" --values --json >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  expect_rc 0
  json_check 'd["bad"] == [] and d["values"]["nan"] == d["values"]["pos_inf"] == d["values"]["neg_inf"] == 0' "$sub: no non-finite"
  json_check 'd["values"]["files_counted"] + d["values"]["files_not_counted"] == d["summary"]["files"]' "$sub: every file accounted"
  [[ "$sub" == torch/specforge-gz ]] || json_check 'd["values"]["files_counted"] == d["summary"]["files"] and d["values"]["elements"] > 0' "$sub: decoded"
done
