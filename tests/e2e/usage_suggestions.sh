# A mistyped command or option is a usage error (exit 64) that names the
# word, in the order given, and the closest known name; bad values name
# their option and the text.
source "$(dirname "$0")/common.sh"

# usage WANT ARGS...: runs the tool, expects exit 64 and WANT as the first
# line of stderr, and nothing on stdout (with --json: the error object,
# docs/json.md).
usage() {
  local want="$1"
  shift
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  expect_rc 64
  [[ "$(head -1 "$TMP/err")" == "$want" ]] || fail "$*: stderr '$(cat "$TMP/err")', want '$want'"
  if [[ " $* " == *" --json "* ]]; then
    json_check "d['exit_code'] == 64 and d['error'] == \"${want#gpu-triage: }\""
  else
    [[ ! -s "$TMP/out" ]] || fail "$*: stdout: $(cat "$TMP/out")"
  fi
}

usage "gpu-triage: unknown command 'fre'; did you mean 'free'?" fre
usage "gpu-triage: unknown command 'dat'; did you mean 'data'?" dat /data
usage "gpu-triage: unknown command 'srve'; did you mean 'serve'?" srve --listen :9835
usage "gpu-triage: unknown command 'banana'" banana
usage "gpu-triage: unknown option '--jsn'; did you mean '--json'?" --jsn
usage "gpu-triage: unknown option '-json'; did you mean '--json'?" -json
usage "gpu-triage: unknown option '--timout=2s'; did you mean '--timeout'?" --timout=2s
usage "gpu-triage: unknown option '--no-colour'; did you mean '--no-color'?" --no-colour
usage "gpu-triage: unknown option '--zzz'" --zzz
# The first unknown word, never the list reversed.
usage "gpu-triage: unexpected argument 'first'" --json first second
usage "gpu-triage: unknown option '--one'; did you mean '--oneline'?" --wide --one --two
grep -qF "Run 'gpu-triage --help' for more information." "$TMP/err" || fail "no pointer to --help"

# Each command names itself and suggests from its own options.
usage "gpu-triage free: unknown option '--gpu'; did you mean '--gpus'?" free --gpu 0
usage "gpu-triage free: unknown option '--yess'; did you mean '--yes'?" free --yess
usage "gpu-triage data: unknown option '--exepct'; did you mean '--expect'?" data --exepct 3 /tmp
usage "gpu-triage data: unknown option '--dep'; did you mean '--deep'?" data /tmp --dep
usage "gpu-triage serve: unknown option '--listn'; did you mean '--listen'?" serve --listn :1
usage "gpu-triage serve: unknown option '--max-ages'; did you mean '--max-age'?" serve --max-ages 1s
# serve passes the collection options on; their typos are found there.
usage "gpu-triage serve: unknown option '--timout'; did you mean '--timeout'?" serve --timout 1s
usage "gpu-triage: unknown command 'fre'; did you mean 'free'?" help fre
usage "gpu-triage: help takes one COMMAND at most" help free data

# Bad values: the option, the text and what is wanted.
usage "gpu-triage: --expect-gpus: 'abc' is not a whole number from 0 to 1024" --expect-gpus abc
usage "gpu-triage: --expect-gpus: 1025 is too large (at most 1024)" --expect-gpus 1025
# The fleet's options name the fleet command, whose errors say so.
usage "gpu-triage fleet: --fanout: 0 is too small (at least 1)" --fanout 0
usage "gpu-triage fleet: --host-timeout: invalid duration 'x': no number (use e.g. 500ms, 2s, 1.5s, 1m)" \
  --host-timeout x
usage "gpu-triage fleet: --host-timeout must be above 0, got '0'" fleet --host-timeout 0
usage "gpu-triage: --exit-codes: foo not in {nagios,npd}" --exit-codes foo
usage "gpu-triage free: --pid: 'abc' is not a whole number" free --pid abc
usage "gpu-triage free: --grace: invalid duration 'x': no number (use e.g. 500ms, 2s, 1.5s, 1m)" \
  free --grace x
usage "gpu-triage free: --timeout: invalid duration 'x': no number (use e.g. 500ms, 2s, 1.5s, 1m)" \
  free --timeout x
usage "gpu-triage free: --sample (5s) must be shorter than --timeout (2s)" \
  free --sample 5s --timeout 2s
usage "gpu-triage data: --threads: 'many' is not a whole number" data /tmp --threads many
usage "gpu-triage data: --expect: '-1' is not a whole number" data /tmp --expect -1
usage "gpu-triage serve: --max-age: invalid duration 'x': no number (use e.g. 500ms, 2s, 1.5s, 1m)" \
  serve --max-age x
