# gpu-triage serve on the after-crash scenario: /metrics in the Prometheus
# text format with dcgm-exporter's label keys, /healthz with the JSON
# report, serve's own metrics, promtool's lint, and bad usage.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"
command -v promtool >/dev/null || fail "promtool missing (scripts/install-deps installs prometheus)"

start_serve after-crash --sample 400ms --max-age 10m
wait_for_report
json_check_body() { cp "$TMP/body" "$TMP/out"; json_check "$@"; }
json_check_body 'd["verdict"] == "WARNING" and len(d["gpus"]) == 8' "healthz: the JSON report"
grep -qi '^X-GPU-Triage-Verdict: WARNING' "$TMP/headers" || fail "verdict header: $(cat "$TMP/headers")"

fetch /metrics
[[ "$HTTP_STATUS" == 200 ]] || fail "/metrics status $HTTP_STATUS"
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/headers" ||
  fail "content type: $(cat "$TMP/headers")"
cp "$TMP/body" "$TMP/out"
expect_out_contains 'gpu_triage_build_info{Hostname="llm-rtxpro-03",version="0.1.0"} 1'
expect_out_contains 'gpu_triage_verdict{Hostname="llm-rtxpro-03",verdict="warning"} 1'
expect_out_contains 'gpu_triage_verdict{Hostname="llm-rtxpro-03",verdict="critical"} 0'
expect_out_contains 'driver_version="590.48.01"'
expect_out_contains 'nvml_library_version="590.48.01"'
expect_out_contains 'gpu_triage_finding{id="memory.held_idle",severity="warning",pid="3141",Hostname="llm-rtxpro-03"} 1'
grep -q '^gpu_triage_gpu_memory_used_bytes{gpu="7",UUID="GPU-[0-9a-f-]*",pci_bus_id="00000000:[0-9A-F]*:00.0",modelName="NVIDIA RTX PRO 6000 Blackwell Server Edition",Hostname="llm-rtxpro-03"} 758' "$TMP/out" ||
  fail "per-GPU labels: $(grep gpu_triage_gpu_memory_used_bytes "$TMP/out")"
[[ $(grep -c '^gpu_triage_finding{id="memory.held_idle"' "$TMP/out") == 1 ]] || fail "one held_idle finding for the one server"
expect_out_lacks 'gpu_triage_gpu_fan_speed_ratio'   # fanless board: unknown, not 0
expect_out_contains 'gpu_triage_collections_total{Hostname="llm-rtxpro-03"} 1'
expect_out_contains 'gpu_triage_report_age_seconds{Hostname="llm-rtxpro-03"} '
if grep -Eq '^[a-z_]+(\{[^}]*\})? [^ ]+ [0-9]+$' "$TMP/out"; then fail "a sample has a timestamp"; fi

# promtool's lint: clean but for dcgm-exporter's camelCase modelName key.
set +e
promtool check metrics <"$TMP/out" >"$TMP/lint" 2>&1
set -e
if [[ -n "$(grep -v "label names should be written in 'snake_case' not 'camelCase'" "$TMP/lint" || true)" ]]; then
  fail "promtool check metrics: $(cat "$TMP/lint")"
fi
sed 's/modelName=/model_name=/' "$TMP/out" | promtool check metrics ||
  fail "promtool check metrics (modelName aside)"

# A second scrape within --max-age is served from the same collection.
fetch /metrics
grep -q 'gpu_triage_collections_total{Hostname="llm-rtxpro-03"} 1$' "$TMP/body" || fail "collected again"
fetch /nope
[[ "$HTTP_STATUS" == 404 ]] || fail "/nope: $HTTP_STATUS"

# Bad usage: 64, before listening.
run after-crash serve --listen nowhere
expect_rc 64
run after-crash serve --json
expect_rc 64
run after-crash serve --help
expect_rc 0
expect_out_contains "--scrape-timeout"
