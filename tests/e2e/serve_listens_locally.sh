# The packaged serve listens where the docs say (issue 47): the systemd
# unit's defaults (packaging/default/gpu-triage-serve) on 127.0.0.1 only,
# never every address; serve started with them (the port swapped for a
# free one, tests run beside each other) has no socket on another address.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"
# shellcheck disable=SC1091
source "$GT_SOURCE_DIR/packaging/default/gpu-triage-serve"
read -ra args <<<"$GPU_TRIAGE_SERVE_ARGS"
listen="${args[$(($(printf '%s\n' "${args[@]}" | grep -nx -- --listen | cut -d: -f1)))]}"
[[ "$listen" == 127.0.0.1:9835 ]] || fail "packaged --listen $listen, not 127.0.0.1:9835"
grep -q 'ExecStart=/usr/bin/gpu-triage serve $GPU_TRIAGE_SERVE_ARGS$' \
  "$GT_SOURCE_DIR/packaging/systemd/gpu-triage-serve.service" || fail "the unit adds its own options"
port=$(free_port)
setsid "$WITH_MOCK" healthy-h100x8 "$TOOL" serve "${args[@]/127.0.0.1:9835/127.0.0.1:$port}" \
  >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PGID=$!
for _ in $(seq 100); do grep -q "listening on" "$TMP/serve.err" 2>/dev/null && break; sleep 0.1; done
grep -q "listening on http://127.0.0.1:$port" "$TMP/serve.err" || fail "serve: $(cat "$TMP/serve.err")"
sockets=$(ss -Hltn "sport = :$port" | awk '{print $4}')
[[ "$sockets" == "127.0.0.1:$port" ]] || fail "listening on: $sockets"
exit 0
