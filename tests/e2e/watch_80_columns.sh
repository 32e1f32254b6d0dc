# gpu-triage watch on the story's node at 80 columns (issue 31 item 7): the
# memory each GPU holds is shown in GiB beside its share (70.6 GiB: the
# story's 75.8 GB per GPU), nouns are counted ("8 GPUs", "1 server"), the
# new bad file is named on the main view, and the `f` view lists the new bad
# files and the stall.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"
# Each screen waited for at twice what it needs alone: beside the suite on
# two cores (two tests a core) its waits ran out at 15 s (it ran alone
# before; a wait ends as soon as its screen shows).
WRITER="$GT_SOURCE_DIR/tests/e2e/lib/data_writer.py"
D="$TMP/job/out"
"$PYTHON" "$WRITER" "$D" baseline 30

tmux_start 80 40
tmux_type "$WITH_MOCK after-crash $TOOL watch --data $D --expect 100 --interval 1s --sample 200ms --no-kernel-log" Enter
wait_screen "DATA $D" 30
screen=$(tmux_screen)
echo "$screen" | grep -E '^  0 ' | grep -qF "70.6 GiB" || fail "no GiB beside the share at 80 columns:
$screen"
echo "$screen" | grep -qF "  8 GPUs  " || fail "the header does not count 8 GPUs: $(echo "$screen" | head -1)"
wait_screen "watching 8 GPUs, 1 server; verdict" 30
if tmux_screen | grep -qF '(s)'; then fail "a noun not counted: $(tmux_screen | grep -F '(s)')"; fi

"$PYTHON" "$WRITER" "$D" write 30 4 0.5 32
wait_screen "  1 new BAD file: sample_00032.gz: truncated" 30
wait_screen "  STALLED: no new file for" 50
while IFS= read -r line; do
  (( ${#line} <= 80 )) || fail "a line wider than 80 columns: $line"
done < <(tmux_screen)

tmux_type f
wait_screen "FINDINGS (NEW: raised since watch started)" 30
wait_screen "DATA $D: 1 new bad file, STALLED" 30
tmux_screen | grep -E "^NEW critical [0-9:]{8} sample_00032\.gz: truncated" >/dev/null ||
  fail "the f view does not list the new bad file: $(tmux_screen)"
wait_screen "NEW warning stalled: no new file for" 30
tmux_screen | grep -E "^    [0-9:]{8} stall: no new file for" >/dev/null ||
  fail "the f view does not list the stall: $(tmux_screen)"
tmux_type q
for _ in $(seq 50); do [[ $(tmux_var '#{alternate_on}') == 0 ]] && break; sleep 0.1; done
