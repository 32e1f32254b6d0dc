# Helpers for the `gpu-triage serve` end-to-end tests (sourced after
# common.sh; not a test itself: CTest runs tests/e2e/*.sh only).

SERVE_PGID=""
EXTRA_PGIDS=()

serve_cleanup() {
  local g
  for g in $SERVE_PGID "${EXTRA_PGIDS[@]}"; do
    [[ -n "$g" ]] && kill -TERM -- "-$g" 2>/dev/null || true
  done
  sleep 0.2
  for g in $SERVE_PGID "${EXTRA_PGIDS[@]}"; do
    [[ -n "$g" ]] && kill -KILL -- "-$g" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap serve_cleanup EXIT

# free_port: prints a TCP port free on 127.0.0.1 right now.
free_port() {
  "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_serve SCENARIO ARGS...: starts `gpu-triage serve --listen
# 127.0.0.1:0 ARGS` against the scenario in its own process group; sets
# SERVE_PORT and SERVE_URL once it listens (10 s at most).
start_serve() {
  local scenario="$1"
  shift
  setsid "$WITH_MOCK" "$scenario" "$TOOL" serve --listen 127.0.0.1:0 "$@" \
    >"$TMP/serve.out" 2>"$TMP/serve.err" &
  SERVE_PGID=$!
  local i
  for ((i = 0; i < 100; i++)); do
    # The background shell may not have created serve.err yet: not an error.
    SERVE_PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/serve.err" \
      2>/dev/null || true)
    [[ -n "$SERVE_PORT" ]] && break
    kill -0 "$SERVE_PGID" 2>/dev/null || fail "serve exited: $(cat "$TMP/serve.err")"
    sleep 0.1
  done
  [[ -n "$SERVE_PORT" ]] || fail "serve did not start listening: $(cat "$TMP/serve.err")"
  SERVE_URL="http://127.0.0.1:$SERVE_PORT"
}

# serve_pid: the gpu-triage process itself (with-mock is its parent).
serve_pid() {
  pgrep -g "$SERVE_PGID" -x gpu-triage | head -1
}

# fetch PATH [CURL ARGS...]: GET into $TMP/body, headers into $TMP/headers,
# status in $HTTP_STATUS; 15 s at most.
fetch() {
  local path="$1"
  shift
  HTTP_STATUS=$(curl -sS -m 15 -D "$TMP/headers" -o "$TMP/body" -w '%{http_code}' "$@" \
    "$SERVE_URL$path") || fail "curl $path failed"
}

# wait_for_report: until the first collection ended (/healthz 200), 15 s at most.
wait_for_report() {
  local i
  for ((i = 0; i < 150; i++)); do
    fetch /healthz
    [[ "$HTTP_STATUS" == 200 ]] && return 0
    sleep 0.1
  done
  fail "no report after 15 s: $(cat "$TMP/body")"
}

# start_prometheus PORT...: a real Prometheus (Debian's prometheus package)
# on loopback scraping serve on each 127.0.0.1:PORT every second as job
# gpu-triage; sets PROM_PORT. Its log is $TMP/prom.err.
start_prometheus() {
  local targets="" p
  for p in "$@"; do targets+="${targets:+, }'127.0.0.1:$p'"; done
  PROM_PORT=$(free_port)
  mkdir -p "$TMP/prom-data"
  cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gpu-triage
    static_configs:
      - targets: [$targets]
YML
  setsid prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom-data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn \
    >"$TMP/prom.out" 2>"$TMP/prom.err" &
  EXTRA_PGIDS+=($!)
}

# prom_query PROMQL: the Prometheus API's answer in $TMP/out ({} on no answer).
prom_query() {
  curl -sS -m 5 -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" \
    >"$TMP/out" 2>/dev/null || echo '{}' >"$TMP/out"
}
