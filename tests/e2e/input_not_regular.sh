# An input file that is not a regular file (a FIFO, with or without a
# writer; /dev/zero) is refused before it is opened, exit 64: the one-shot
# triage never hangs (issue: new-operator trial, item 1).
source "$(dirname "$0")/common.sh"

mkfifo "$TMP/ff"
out=$(timeout 10 "$TOOL" --smi-xml "$TMP/ff" 2>&1) && rc=0 || rc=$?
[ "$rc" = 64 ] || fail "--smi-xml FIFO: rc $rc (124 = hung): $out"
grep -q "is a FIFO, not a regular file" <<<"$out" || fail "--smi-xml FIFO: $out"

out=$(timeout 10 "$WITH_MOCK" after-crash "$TOOL" --kernel-log "$TMP/ff" 2>&1) && rc=0 || rc=$?
[ "$rc" = 64 ] || fail "--kernel-log FIFO: rc $rc (124 = hung): $out"
grep -q "is a FIFO, not a log" <<<"$out" || fail "--kernel-log FIFO: $out"

out=$(timeout 10 "$WITH_MOCK" after-crash "$TOOL" --kernel-log /dev/zero 2>&1) && rc=0 || rc=$?
[ "$rc" = 64 ] || fail "--kernel-log /dev/zero: rc $rc: $out"

out=$(timeout 10 "$TOOL" --smi-xml /dev/zero 2>&1) && rc=0 || rc=$?
[ "$rc" = 64 ] || fail "--smi-xml /dev/zero: rc $rc: $out"
echo ok
