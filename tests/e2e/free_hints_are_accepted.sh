# Every command line `gpu-triage free` advises is one its parser accepts and
# whose plan does what the advice says: run as printed, each plans a stop
# with no refusal. Shapes: one rank of a TP=2 server named with --pid (the
# warning), a selection that cuts a server in two (the refusal), a
# supervisor of two servers (its owner line), a restart loop whose launcher
# is named without it (the refusal), a server not known to be idle (left
# alone).
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
export PYTHONPATH="$TMP"
"$PYTHON" -m sglang.launch_server --tp 2 --pid-file "$TMP/a" &
la=$!
"$PYTHON" "$GT_SOURCE_DIR/tests/free/fake_supervisor.py" "$TMP/launchers" -- \
  "$PYTHON" -m sglang.launch_server --tp 2 --port 30000 --pid-file "$TMP/b" :: \
  "$PYTHON" -m sglang.launch_server --tp 2 --port 30001 --pid-file "$TMP/c" &
sup=$!
setsid bash -c "while true; do \"$PYTHON\" -m sglang.launch_server --tp 1 --pid-file \"$TMP/d\"; sleep 1; done" &
loop=$!
trap 'kill -9 $la $sup $(in_session $loop) $(cat "$TMP/launchers" "$TMP"/[abcd] 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for f in a b c d launchers; do wait_for "$TMP/$f"; done
read -r W0 W1 <"$TMP/a"
read -r W2 W3 <"$TMP/b"
read -r W4 W5 <"$TMP/c"
read -r W6 <"$TMP/d"
export W0 W1 W2 W3 W4 W5 W6
ld=$(awk '{print $4}' "/proc/$W6/stat")
free_scenario "$TMP/scenario.json" W0 W1 W2 W3 W4 W5 W6
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }

# try_hints WHAT ARGS...: the advice printed by `free ARGS` (text), each run
# as printed; advice that does not choose a sample window gets --sample 0
# --include-busy, as every other run here.
try_hints() {
  local what="$1"
  shift
  run "$TMP/scenario.json" free --root / "$@"
  mapfile -t hints < <(grep -o '`gpu-triage free [^`]*`' "$TMP/out" | tr -d '`' | sort -u)
  [[ ${#hints[@]} -gt 0 ]] || fail "$what: no command line advised: $(cat "$TMP/out")"
  for h in "${hints[@]}"; do
    read -r -a args <<<"${h#gpu-triage free }"
    if [[ " ${args[*]} " != *" --sample "* ]]; then
      args+=(--sample 0)
      [[ " ${args[*]} " == *" --include-busy "* ]] || args+=(--include-busy)
    fi
    run "$TMP/scenario.json" free --root / "${args[@]}" --json
    [[ "$RC" != 64 ]] || fail "$what: the parser refuses the advice '$h': $(cat "$TMP/err")"
    json_check 'd["refusals"] == [] and d["skipped"] == [] and len(d["targets"]) >= 1' "$what: '$h' plans a stop without refusal"
  done
}

try_hints "one rank" --pid "$W0" --sample 0 --include-busy
try_hints "half a server" --gpus 0 --sample 0 --include-busy
try_hints "a supervisor's server" --gpus 2-3 --sample 0 --include-busy
try_hints "a launcher under a loop" --pid "$ld" --pid "$W6" --sample 0 --include-busy
try_hints "a server not known to be idle" --gpus 0-1 --sample 0
