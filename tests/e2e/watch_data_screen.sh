# gpu-triage watch --data DIR --expect N on a terminal (tmux), while a test
# writer fills DIR: the view shows the pace against the job's previous one
# (6 a minute from the files already there), what is left and the ETA, the
# damaged new file, then the stall.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"
WRITER="$GT_SOURCE_DIR/tests/e2e/lib/data_writer.py"
D="$TMP/job/out"
"$PYTHON" "$WRITER" "$D" baseline 30

tmux_start 100 40
tmux_type "$WITH_MOCK healthy-h100x8 $TOOL watch --data $D --expect 100 --interval 1s --sample 200ms --no-kernel-log" Enter
wait_screen "DATA $D" 15
wait_screen "  pace " 5
tmux_screen | grep -F "  pace " | grep -qF "(before 6.0/min), 70 left, ETA 11m40s" ||
  fail "previous pace and ETA: $(tmux_screen | grep -F pace)"
"$PYTHON" "$WRITER" "$D" write 30 12 0.5 36
wait_screen "1 new BAD" 10
wait_screen "1 new BAD file: sample_00036.gz: truncated" 2
wait_screen "11 new intact" 10
line=$(tmux_screen | grep -F "  pace ")
echo "$line" | grep -qE "pace [0-9]+\.[0-9] files/min \(before 6\.0/min\), 59 left, ETA " ||
  fail "current pace, what is left and the ETA: $line"
wait_screen "STALLED" 25
tmux_type q
for _ in $(seq 50); do [[ $(tmux_var '#{alternate_on}') == 0 ]] && break; sleep 0.1; done
[[ $(tmux_var '#{alternate_on}') == 0 ]] || fail "still on the alternate screen after q"
