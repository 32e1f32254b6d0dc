# A real Prometheus server (Debian's prometheus package) on loopback scrapes
# `gpu-triage serve` on the after-crash scenario; its HTTP API must then hold
# the series with dcgm-exporter's label keys.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"
command -v prometheus >/dev/null || fail "prometheus missing (scripts/install-deps installs it)"

start_serve after-crash --sample 400ms
start_prometheus "$SERVE_PORT"


# Wait (30 s at most) until the per-GPU series arrived.
for ((i = 0; i < 150; i++)); do
  prom_query 'gpu_triage_gpu_memory_used_bytes'
  if "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d.get("data",{}).get("result",[]))==8 else 1)' "$TMP/out" 2>/dev/null; then
    break
  fi
  sleep 0.2
done
json_check 'len(d["data"]["result"]) == 8' "8 GPUs' memory series in Prometheus: $(head -c 500 "$TMP/out"); $(tail -5 "$TMP/prom.err")"
json_check 'sorted(int(r["metric"]["gpu"]) for r in d["data"]["result"]) == list(range(8))' "gpu label 0-7"
json_check 'all(r["metric"]["UUID"].startswith("GPU-") for r in d["data"]["result"])' "UUID label"
json_check 'all(r["metric"]["modelName"] == "NVIDIA RTX PRO 6000 Blackwell Server Edition" for r in d["data"]["result"])' "modelName label"
json_check 'all(r["metric"]["Hostname"] == "llm-rtxpro-03" for r in d["data"]["result"])' "Hostname label"
json_check 'all(r["metric"]["pci_bus_id"].startswith("00000000:") for r in d["data"]["result"])' "pci_bus_id label"
json_check 'all(r["metric"]["job"] == "gpu-triage" for r in d["data"]["result"])' "scraped by our job"
json_check 'all(abs(float(r["value"][1]) - 75.8e9) < 0.2e9 for r in d["data"]["result"])' "75.8 GB used"

prom_query 'up{job="gpu-triage"}'
json_check 'd["data"]["result"][0]["value"][1] == "1"' "up == 1"
prom_query 'gpu_triage_verdict == 1'
json_check '[r["metric"]["verdict"] for r in d["data"]["result"]] == ["warning"]' "verdict warning (the idle server)"
prom_query 'count(gpu_triage_finding{id="memory.held_idle",severity="warning"})'
json_check 'd["data"]["result"][0]["value"][1] == "1"' "one held_idle finding for the one server"
prom_query 'gpu_triage_driver_info'
json_check 'd["data"]["result"][0]["metric"]["driver_version"] == "590.48.01"' "driver info"
prom_query 'gpu_triage_build_info'
json_check 'd["data"]["result"][0]["metric"]["version"] == "0.1.0"' "build info"
# A join as a dashboard would write it: GPUs per model, by UUID.
prom_query 'count by (modelName) (gpu_triage_gpu_memory_used_bytes * on(UUID) group_left(modelName) gpu_triage_gpu_info)'
json_check 'd["data"]["result"][0]["metric"]["modelName"].startswith("NVIDIA RTX PRO 6000") and d["data"]["result"][0]["value"][1] == "8"' "join on UUID"
