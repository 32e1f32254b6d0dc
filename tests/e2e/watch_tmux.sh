# gpu-triage watch as a person uses it, under tmux against the timeline
# mock: the full screen shows the SGLang server, raises the Xid at about
# 5 s with its GPU and server, shows GPU 5 not answering from about 8 s
# while the other GPUs keep updating, fits 80 columns, answers the keys,
# and q leaves the terminal as it was (main screen, echo and line mode).
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

tmux_start 80 40
tmux_type "stty -a > $TMP/stty.before" Enter
tmux_type "$WITH_MOCK watch-timeline $TOOL watch --interval 1s --sample 200ms --timeout 2s --no-kernel-log" Enter
wait_screen "GPU util" 15  # the typed command line also says "gpu-triage watch"
[[ $(tmux_var '#{alternate_on}') == 1 ]] || fail "not on the alternate screen"
wait_screen "SGLang pid-3141 (TP 8, GPUs 0-7)" 5
wait_screen "GPU util" 5
# The Xid, highlighted as new, with its GPU and server.
wait_screen "gpu.xid.31 GPU 3" 12
tmux_screen | grep -F "gpu.xid.31 GPU 3" | grep -qF "SGLang pid-3141" ||
  fail "Xid 31 without its server: $(tmux_screen)"
# GPU 5 stops answering; the others keep updating.
wait_screen "NOT ANSWERING" 15
row() { tmux_screen | grep -E "^ +$1 " | head -1; }
row 5 | grep -qF "NOT ANSWERING" || fail "GPU 5 row: $(row 5)"
tmux_screen | grep -qF "gpu.unresponsive GPU 5" || fail "GPU 5 not raised: $(tmux_screen)"
before=$(row 0)
sleep 2.5
after=$(row 0)
[[ "$before" != "$after" ]] || fail "GPU 0 stopped updating: $after"
echo "$after" | grep -qE " 9[4-6]% " || fail "GPU 0 not at its ramped utilisation: $after"
# 80 columns: no line wider than the terminal (joined wrapped lines).
tmux -S "$TMUX_SOCKET" capture-pane -p -J -t w >"$TMP/screen"
"$PYTHON" - "$TMP/screen" <<'PY' || fail "a line wider than 80 columns: $(cat "$TMP/screen")"
import sys
assert all(len(l) <= 80 for l in open(sys.argv[1], encoding="utf-8").read().splitlines())
PY
# Keys: f findings, g a GPU's detail, ? help, each again to go back.
tmux_type f
wait_screen "FINDINGS (NEW: raised since watch started)" 5
tmux_type f
wait_screen "GPU util" 5
tmux_type g
wait_screen "GPU 0  NVIDIA RTX PRO 6000" 5
tmux_type Escape
tmux_type "?"
wait_screen "KEYS" 5
tmux_type "?"
# q: back to the shell, the terminal as it was.
tmux_type q
for _ in $(seq 50); do [[ $(tmux_var '#{alternate_on}') == 0 ]] && break; sleep 0.1; done
[[ $(tmux_var '#{alternate_on}') == 0 ]] || fail "still on the alternate screen after q"
[[ $(tmux_var '#{cursor_flag}') == 1 ]] || fail "cursor still hidden after q"
tmux_type "stty -a > $TMP/stty.after; echo done-\$?" Enter
wait_screen "done-0" 5
diff "$TMP/stty.before" "$TMP/stty.after" >/dev/null || fail "terminal modes changed by watch:
$(diff "$TMP/stty.before" "$TMP/stty.after")"

# SIGTERM restores the terminal too.
tmux_type "$WITH_MOCK healthy-h100x8 sh -c 'echo \$\$ > $TMP/watch.pid; exec $TOOL watch --interval 1s --no-kernel-log'" Enter
wait_screen "GPU util" 15
kill -TERM "$(cat "$TMP/watch.pid")"
for _ in $(seq 50); do [[ $(tmux_var '#{alternate_on}') == 0 ]] && break; sleep 0.1; done
[[ $(tmux_var '#{alternate_on}') == 0 ]] || fail "still on the alternate screen after SIGTERM"
tmux_type "stty -a > $TMP/stty.term; echo done2-\$?" Enter
wait_screen "done2-0" 5
diff "$TMP/stty.before" "$TMP/stty.term" >/dev/null || fail "terminal modes changed after SIGTERM"
