# gpu-triage watch --data DIR --values: a new file whose float tensor holds
# a NaN is bad (non-finite) once settled; a clean one is not; without
# --values the same NaN file passes (its structure is intact).
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"
"$PYTHON" -c "import numpy" 2>/dev/null || { echo "SKIP: python3-numpy not installed"; exit 0; }
D="$TMP/job"
mkdir -p "$D"
write_npys() {
  "$PYTHON" - "$D" "$1" <<'PY'
import sys, numpy as np
a = np.ones((64, 16), dtype=np.float32)
np.save(f"{sys.argv[1]}/sample_{sys.argv[2]}0.npy", a)
a[3, 4] = np.nan
np.save(f"{sys.argv[1]}/sample_{sys.argv[2]}1.npy", a)
PY
}
start_watch healthy-h100x8 --data "$D" --values --interval 1s --sample 200ms --no-kernel-log
wait_out " started " 10
write_npys 0
wait_out "sample_01.npy" 10
sleep 1.5
stop_watch
expect_rc 0
expect_out_contains "bad-file critical $D/sample_01.npy: new file is bad: non-finite"
[[ $(count_out "bad-file") == 1 ]] || fail "the clean file called bad: $(cat "$TMP/out")"

rm -f "$D"/*
start_watch healthy-h100x8 --data "$D" --interval 1s --sample 200ms --no-kernel-log
wait_out " started " 10
write_npys 1
sleep 6
stop_watch
expect_rc 0
[[ $(count_out "bad-file") == 0 ]] || fail "without --values a NaN is no problem: $(cat "$TMP/out")"
