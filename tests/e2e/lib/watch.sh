# Helpers for the `gpu-triage watch` end-to-end tests (sourced after
# common.sh; not a test itself: CTest runs tests/e2e/*.sh only).

WATCH_PID=""
TMUX_SOCKET=""
watch_cleanup() {
  [[ -n "$WATCH_PID" ]] && kill -KILL -- "-$WATCH_PID" 2>/dev/null || true
  [[ -n "$TMUX_SOCKET" ]] && tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null || true
  # The pane's processes die on the server's SIGHUP a moment later and may
  # still write under $TMP while it is removed (seen under load).
  local _
  for _ in 1 2 3 4 5; do
    rm -rf "$TMP" 2>/dev/null && return 0
    sleep 0.2
  done
  rm -rf "$TMP"
}
trap watch_cleanup EXIT

# start_watch SCENARIO ARGS...: `gpu-triage watch ARGS` in the background in
# its own process group (log mode: stdout is a file); lines in $TMP/out.
start_watch() {
  local scenario="$1"
  shift
  set -m
  "$WITH_MOCK" "$scenario" "$TOOL" watch "$@" >"$TMP/out" 2>"$TMP/err" &
  WATCH_PID=$!
  set +m
  WATCH_T0=$(date +%s)
}

# stop_watch: SIGTERM, then waits; the exit code in $RC.
stop_watch() {
  # The tool is with-mock's child; with-mock exits with its status.
  pkill -TERM -P "$WATCH_PID" 2>/dev/null || true
  set +e
  wait "$WATCH_PID"
  RC=$?
  set -e
  WATCH_PID=""
}

# wait_out TEXT SECONDS: until $TMP/out has TEXT (fails after SECONDS).
wait_out() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    grep -qF -- "$1" "$TMP/out" && return 0
    sleep 0.1
  done
  fail "no '$1' in the output within $2 s:
$(cat "$TMP/out")
stderr: $(cat "$TMP/err")"
}

# count_out TEXT: lines of $TMP/out with TEXT.
count_out() { grep -cF -- "$1" "$TMP/out" || true; }

# at_s TEXT: seconds after the start line that the first TEXT line says.
at_s() {
  "$PYTHON" - "$TMP/out" "$1" <<'PY'
import sys, datetime
lines = open(sys.argv[1]).read().splitlines()
t = lambda l: datetime.datetime.strptime(l.split()[0], "%Y-%m-%dT%H:%M:%SZ")
start = next(l for l in lines if " started " in l)
hit = next(l for l in lines if sys.argv[2] in l)
print(int((t(hit) - t(start)).total_seconds()))
PY
}

# The tmux server of this test: its own socket, a fixed size.
tmux_start() {  # tmux_start COLS ROWS
  TMUX_SOCKET="$TMP/tmux.sock"
  tmux -S "$TMUX_SOCKET" -f /dev/null new-session -d -s w -x "$1" -y "$2" \
    "env -i PATH=$PATH HOME=$TMP TERM=xterm-256color GT_BUILD_DIR='$GT_BUILD_DIR' \
     ASAN_OPTIONS='${ASAN_OPTIONS:-}' UBSAN_OPTIONS='${UBSAN_OPTIONS:-}' PS1='$ ' \
     bash --norc --noprofile"
  sleep 0.3
}
tmux_type() { tmux -S "$TMUX_SOCKET" send-keys -t w "$@"; }
tmux_screen() { tmux -S "$TMUX_SOCKET" capture-pane -p -t w; }
tmux_var() { tmux -S "$TMUX_SOCKET" display-message -p -t w "$1"; }

# wait_screen TEXT SECONDS: until the pane shows TEXT.
wait_screen() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    tmux_screen | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  fail "the screen never showed '$1' within $2 s:
$(tmux_screen)"
}
