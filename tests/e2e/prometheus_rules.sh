# contrib/prometheus: the rules load (promtool check rules), their unit tests
# pass (promtool test rules: each alert fires after its `for:` and clears
# once the series say the problem is gone), the tests catch wrong
# expressions (each mutation below must make them fail), every name the
# rules use exists (metrics in prometheus_metrics.cc, finding ids and
# runbook anchors in docs/), and the Alertmanager example passes amtool.
source "$(dirname "$0")/common.sh"
DIR="$GT_SOURCE_DIR/contrib/prometheus"
RULES="$DIR/gpu-triage.rules.yml"
command -v promtool >/dev/null || fail "promtool missing (scripts/install-deps installs prometheus)"

promtool check rules "$DIR"/*.rules.yml >"$TMP/check" 2>&1 || fail "promtool check rules: $(cat "$TMP/check")"
promtool test rules "$DIR"/tests/*.yml >"$TMP/test" 2>&1 || fail "promtool test rules: $(cat "$TMP/test")"
grep -q FAILED "$TMP/test" && fail "promtool test rules: $(cat "$TMP/test")"
echo "promtool: rules load and their unit tests pass"

# Names, labels, runbooks, and a fire + clear case per alert.
"$PYTHON" - "$GT_SOURCE_DIR" "$RULES" "$DIR"/tests/*.yml <<'PY' || fail "rules consistency"
import glob, re, sys
src, rules_path, test_paths = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    import yaml
    load = yaml.safe_load
except ImportError:  # promtool has parsed the files; this check needs PyYAML
    print("SKIP: consistency checks need python3-yaml"); sys.exit(0)

errors = []
metrics = set(re.findall(r'\{"(gpu_triage_[a-z_]+)", "(?:gauge|counter)"',
                         open(f"{src}/src/render/prometheus_metrics.cc").read()))
counters = set(re.findall(r'\{"(gpu_triage_[a-z_]+)", "counter"',
                          open(f"{src}/src/render/prometheus_metrics.cc").read()))
checks = open(f"{src}/docs/checks.md").read()
ids = set(re.findall(r"^\| `([a-z_.*0-9]+)` \|", checks, re.M))

def slugs(path):  # GitHub's heading anchors
    out = set()
    for line in open(path):
        if line.startswith("#"):
            h = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", h).replace(" ", "-"))
    return out

rules = load(open(rules_path))
records = {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}
alerts = [r for g in rules["groups"] for r in g["rules"] if "alert" in r]
# The one alert that compares a counter's level: retired pages are a
# lifetime count with a limit on the count itself (README.md says why).
LEVEL_OK = {"GpuTriageGpuRetiredPagesNearLimit"}
for r in [r for g in rules["groups"] for r in g["rules"]]:
    name = r.get("alert") or r["record"]
    expr = r["expr"]
    for m in re.findall(r"\b(gpu_triage_[a-z_]+)\b", expr):
        if m not in metrics:
            errors.append(f"{name}: {m} is not in prometheus_metrics.cc")
    for m in re.findall(r"\b(gpu_triage:[a-z_:]+)\b", expr):
        if m not in records:
            errors.append(f"{name}: recording rule {m} not defined")
    for i in re.findall(r'id="([^"]+)"', expr):
        if i not in ids:
            errors.append(f"{name}: finding id {i} is not in docs/checks.md")
    if "alert" in r:
        for c in counters:
            for m in re.finditer(rf"\b{c}\b", expr):
                before = expr[:m.start()]
                if not re.search(r"(increase|rate|irate|resets|changes)\(\s*$", before) \
                        and name not in LEVEL_OK:
                    errors.append(f"{name}: counter {c} without increase()/rate()")
for a in alerts:
    name = a["alert"]
    if not a.get("labels", {}).get("severity"):
        errors.append(f"{name}: no severity label")
    ann = a.get("annotations", {})
    for k in ("summary", "description", "runbook_url"):
        if not ann.get(k):
            errors.append(f"{name}: no {k}")
    m = re.match(r"https://gpu-triage\.example/docs/([a-z-]+\.md)#(.+)$", ann.get("runbook_url", ""))
    if not m:
        errors.append(f"{name}: runbook_url {ann.get('runbook_url')} is not docs/FILE.md#anchor")
    elif m.group(2) not in slugs(f"{src}/docs/{m.group(1)}"):
        errors.append(f"{name}: no heading #{m.group(2)} in docs/{m.group(1)}")
    # Finding ids named in the description exist.
    for i in re.findall(r"\b((?:gpu|ecc|memory|nvml|fabric|nvlink|driver)\.[a-z_]+)\b", ann.get("description", "")):
        if i not in ids:
            errors.append(f"{name}: description names {i}, not in docs/checks.md")

# Each alert: a case where it fires and, later in the same test, one where
# it has cleared.
def minutes(t):
    n = re.fullmatch(r"(\d+)([smh])", str(t))
    return int(n.group(1)) * {"s": 1 / 60, "m": 1, "h": 60}[n.group(2)]
fired_cleared = {}
for p in test_paths:
    for case in load(open(p))["tests"]:
        fires = {}
        for t in case.get("alert_rule_test", []):
            at = minutes(t["eval_time"])
            if t.get("exp_alerts"):
                fires.setdefault(t["alertname"], []).append(at)
        for t in case.get("alert_rule_test", []):
            at = minutes(t["eval_time"])
            if not t.get("exp_alerts") and any(f < at for f in fires.get(t["alertname"], [])):
                fired_cleared[t["alertname"]] = True
for a in alerts:
    if a["alert"] not in fired_cleared:
        errors.append(f"{a['alert']}: no test where it fires and then clears")
for e in errors:
    print(e, file=sys.stderr)
print(f"{len(alerts)} alerts, {len(records)} recording rules checked")
sys.exit(1 if errors else 0)
PY

# Mutations: each wrong expression must make the unit tests fail. Each runs
# the one test file that holds its alert's cases (contrib/prometheus/tests,
# named first): that file failing is the suite failing, at a quarter of the
# suite's cost (promtool takes seconds a file). Two at a time.
N=0
PIDS=()
mutate() {  # mutate TESTS OLD NEW: tests/TESTS.yml must fail with OLD replaced by NEW
  N=$((N + 1))
  local d="$TMP/m$N"
  mkdir -p "$d/tests"
  cp "$DIR"/tests/*.yml "$d/tests/"
  "$PYTHON" - "$RULES" "$d/gpu-triage.rules.yml" "$2" "$3" <<'PY' || fail "mutation '$2' does not apply"
import sys
s = open(sys.argv[1]).read()
if s.count(sys.argv[3]) != 1:
    sys.exit(1)
open(sys.argv[2], "w").write(s.replace(sys.argv[3], sys.argv[4]))
PY
  [[ -f "$d/tests/$1.yml" ]] || fail "no test file tests/$1.yml"
  printf '%s -> %s (tests/%s.yml)' "$2" "$3" "$1" >"$d/what"
  if ((${#PIDS[@]} >= 2)); then
    wait "${PIDS[0]}"
    PIDS=("${PIDS[@]:1}")
  fi
  (if promtool test rules "$d/tests/$1.yml" >"$d/out" 2>&1; then touch "$d/passed"; fi) &
  PIDS+=($!)
}
mutate node 'gpu_triage_verdict{verdict="critical"} == 1
        for: 5m' 'gpu_triage_verdict{verdict="critical"} == 1
        for: 0m'
mutate node 'verdict="critical"} == 1' 'verdict=~"critical|warning"} == 1'
mutate node 'gpu_triage_pci_gpus - gpu_triage_gpus > 0
        for' 'gpu_triage_pci_gpus - gpu_triage_gpus >= 0
        for'
mutate node '          unless on (instance, job) (gpu_triage_pci_gpus - gpu_triage_gpus > 0)
' ''
mutate gpus 'action!~"none|gpu_reset' 'action!~"gpu_reset'
mutate gpus 'action=~"gpu_reset|node_reboot' 'action=~"gpu_reset|drain_p2p|node_reboot'
mutate gpus 'for: 1h' 'for: 30m'
mutate gpus 'id="memory.held_idle"} > 0' 'id=~"memory.held_.*"} > 0'
mutate gpus 'id=~"ecc\\..+"' 'id=~".*ecc.*|gpu.xid.48"'
mutate gpus '(gpu_triage_gpu_retired_pages_total) >= 48 < 60' '(gpu_triage_gpu_retired_pages_total) >= 48'
mutate exporter 'sum without (cause) (gpu_triage_gpu_retired_pages_total)
' 'max without (cause) (gpu_triage_gpu_retired_pages_total)
'
mutate gpus 'spare="low"} > 0' 'spare=~"low|none"} > 0'
mutate exporter 'up{job="gpu-triage"} == 0' 'up == 0'
mutate exporter 'gpu_triage_collector_halted == 1' 'gpu_triage_collector_halted >= 0'
mutate exporter 'increase(gpu_triage_collections_abandoned_total[15m]) > 0' 'gpu_triage_collections_abandoned_total > 0'
mutate exporter 'gpu_triage_collection_timestamp_seconds > 600' 'gpu_triage_collection_timestamp_seconds > 60'
mutate exporter 'count by (cluster, verdict) (gpu_triage_verdict == 1)' 'count by (cluster, verdict) (gpu_triage_verdict)'
mutate clearing 'increase(gpu_triage_gpu_ecc_aggregate_errors_total{type="uncorrected"}[1h]) > 0' 'gpu_triage_gpu_ecc_aggregate_errors_total{type="uncorrected"} > 0'
mutate gpus ',id!~"ecc\\.(aggregate_uncorrectable|retired_pages_dbe)"' ''
mutate clearing 'id=~"gpu\\.s?xid\\..+",severity="critical"}' 'id=~"gpu\\.s?xid\\..+",severity!="warning"}'
mutate clearing 'pcie\\.link_downgraded",severity="warning"}' 'pcie\\.link_downgraded"}'
for pid in "${PIDS[@]}"; do wait "$pid"; done
for ((i = 1; i <= N; i++)); do
  [[ ! -e "$TMP/m$i/passed" ]] || fail "the unit tests pass with the mutation $(cat "$TMP/m$i/what")"
done
echo "mutations: each of $N fails the unit tests"

if command -v yamllint >/dev/null; then
  yamllint -s -c "$DIR/.yamllint" "$DIR" >"$TMP/lint" 2>&1 || fail "yamllint: $(cat "$TMP/lint")"
else
  fail "yamllint missing (scripts/install-deps installs it)"
fi

if ! command -v amtool >/dev/null; then
  echo "SKIP: amtool not installed (Debian's prometheus-alertmanager, scripts/install-deps installs it): alertmanager.example.yml not checked"
  exit 0
fi
amtool check-config "$DIR/alertmanager.example.yml" >"$TMP/am" 2>&1 || fail "amtool check-config: $(cat "$TMP/am")"
# amtool does check: a route to a receiver that does not exist is refused.
sed 's/receiver: gpu-oncall-pager/receiver: nobody/' "$DIR/alertmanager.example.yml" >"$TMP/am-broken.yml"
if amtool check-config "$TMP/am-broken.yml" >"$TMP/am" 2>&1; then
  fail "amtool accepted a route to an undefined receiver"
fi
grep -q 'group_by: \[cluster, Hostname\]' "$DIR/alertmanager.example.yml" || fail "route does not group by cluster and Hostname"
echo "amtool: alertmanager.example.yml passes"
