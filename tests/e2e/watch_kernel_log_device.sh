# gpu-triage watch --kernel-log takes /dev/kmsg (the character device 1:11)
# or a regular file, nothing else: /dev/zero (taken for kmsg, read forever
# at 100% CPU, deaf to SIGTERM), a tty, a FIFO or a folder given by mistake
# is a usage error (64) said at once. And SIGTERM ends a running watch
# within a second or two.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

refused() {  # refused PATH WHAT: exit 64 within 2 s, saying WHAT
  local t0=$(date +%s%N)
  set +e
  timeout -s KILL 10 "$WITH_MOCK" healthy-h100x8 "$TOOL" watch --log --kernel-log "$1" \
    --interval 1s >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  local ms=$((($(date +%s%N) - t0) / 1000000))
  expect_rc 64
  ((ms < 2000)) || fail "--kernel-log $1 took $ms ms to be refused"
  # The option parser refuses it (the one check every command shares,
  # sources/kernel_log/not_a_log.h) before watch opens anything.
  grep -qF -- "--kernel-log $1 is $2, not a log: pass a regular file (a saved dmesg, kern.log) or /dev/kmsg" \
    "$TMP/err" || fail "no reason for $1: $(cat "$TMP/err")"
}
refused /dev/zero "a character device (1:5)"
refused /dev/null "a character device (1:3)"
mkfifo "$TMP/fifo"
refused "$TMP/fifo" "a FIFO"
refused "$TMP" "a directory"

# A log file is followed; SIGTERM ends the watch promptly, exit 0.
LOG="$TMP/kern.log"
echo "[  100.000000] NVRM: Xid (PCI:0000:2a:00): 13, pid=4242, name=python3, Graphics Exception" >"$LOG"
start_watch healthy-h100x8 --kernel-log "$LOG" --interval 1s --sample 200ms
wait_out " started " 10
t0=$(date +%s%N)
stop_watch
ms=$((($(date +%s%N) - t0) / 1000000))
expect_rc 0
((ms < 2000)) || fail "SIGTERM took $ms ms to end watch"
