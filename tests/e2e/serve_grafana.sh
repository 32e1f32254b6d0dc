# The Grafana dashboard (contrib/grafana/gpu-triage.json) against a real
# Prometheus (Debian's prometheus package) scraping `gpu-triage serve` on
# the story: every panel's and variable's PromQL, through the HTTP query
# API, must evaluate without an error and return data. The story's kernel
# log has no Xid, so a second serve on the story reads a real kernel log
# with Xids 48, 63 and 94 (tests/fixtures/real/kernel-log) for the Xid panel.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"
command -v prometheus >/dev/null || fail "prometheus missing (scripts/install-deps installs it)"
DASH="$GT_SOURCE_DIR/contrib/grafana/gpu-triage.json"
XID_LOG="$GT_SOURCE_DIR/tests/fixtures/real/kernel-log/gpud-xid48-63-94-dbe-rowremap-contained.log"

start_serve story --sample 400ms
EXTRA_PGIDS+=("$SERVE_PGID")
PLAIN_PORT=$SERVE_PORT
start_serve story --sample 400ms --kernel-log "$XID_LOG"
start_prometheus "$PLAIN_PORT" "$SERVE_PORT"

# Both targets scraped with their GPUs and the Xid log read: 60 s at most
# (Prometheus starts slowly on a loaded 2-core machine).
for ((i = 0; i < 300; i++)); do
  prom_query 'count(gpu_triage_gpu_memory_used_bytes) == 16 and on() count(gpu_triage_kernel_log_events{kind="xid"}) > 0'
  "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("data",{}).get("result") else 1)' "$TMP/out" 2>/dev/null && break
  sleep 0.2
done
json_check 'd["data"]["result"]' "both serves scraped, 16 GPUs and the Xids: $(head -c 300 "$TMP/out"); $(tail -3 "$TMP/prom.err")"

"$PYTHON" - "$DASH" "http://127.0.0.1:$PROM_PORT" <<'PY' || fail "dashboard queries"
import json, re, sys, urllib.parse, urllib.request
dash, prom = json.load(open(sys.argv[1])), sys.argv[2]
errors, checked = [], 0

def query(expr):
    url = f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # a bad query: 400 with the error
        return json.load(e)

def grafana_to_promql(expr):
    # The dashboard's variables as Grafana fills them with "All" selected.
    expr = expr.replace("$Hostname", ".*")
    m = re.fullmatch(r"label_values\((\w+), *(\w+)\)", expr)
    return f"count by ({m.group(2)}) ({m.group(1)})" if m else expr

def check(where, expr):
    global checked
    d = query(grafana_to_promql(expr))
    checked += 1
    if d.get("status") != "success":
        errors.append(f"{where}: query error {d.get('error')}: {expr}")
    elif not d["data"]["result"]:
        errors.append(f"{where}: no data on the story: {expr}")

ids = [p["id"] for p in dash["panels"]]
if len(ids) != len(set(ids)):
    errors.append(f"panel ids repeat: {ids}")
for p in dash["panels"]:
    if p.get("datasource", {}).get("uid") != "${datasource}":
        errors.append(f"panel {p['title']}: not on the dashboard's data source variable")
    if not p.get("targets"):
        errors.append(f"panel {p['title']}: no query")
    for t in p.get("targets", []):
        check(f"panel {p['title']!r} {t['refId']}", t["expr"])
for v in dash["templating"]["list"]:
    if v["type"] == "query":
        check(f"variable {v['name']}", v["query"]["query"])
want = {"Verdict", "GPUs by status", "Memory held by server", "Xid events"}
missing = want - {p["title"] for p in dash["panels"]}
if missing:
    errors.append(f"panels missing: {sorted(missing)}")
print(f"{checked} dashboard queries evaluated")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY

# The verdict panel shows the worst verdict of the node's serves in the
# mapping its value mappings name (0 ok, 1 warning, 2 unknown, 3 critical),
# and the memory panel the idle SGLang server's memory (8 GPUs x 75.8 GB,
# on each of the two serves).
prom_query 'gpu_triage_verdict == 1'
want=$("$PYTHON" -c 'import json,sys; m={"ok":0,"warning":1,"unknown":2,"critical":3}; print(max(m[r["metric"]["verdict"]] for r in json.load(open(sys.argv[1]))["data"]["result"]))' "$TMP/out")
prom_query "$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["panels"][0]["targets"][0]["expr"].replace("$Hostname", ".*"))' "$DASH")"
json_check "[r['value'][1] for r in d['data']['result']] == ['$want']" "verdict panel: want $want: $(head -c 300 "$TMP/out")"
"$PYTHON" -c 'import json,sys; m=json.load(open(sys.argv[1]))["panels"][0]["fieldConfig"]["defaults"]["mappings"][0]["options"]; sys.exit(0 if m[sys.argv[2]]["text"] in ("OK","WARNING","UNKNOWN","CRITICAL") else 1)' "$DASH" "$want" ||
  fail "verdict panel: no mapping for $want"
prom_query 'sum(gpu_triage_server_memory_bytes)'
json_check 'abs(float(d["data"]["result"][0]["value"][1]) - 2 * 8 * 75.8e9) < 2e9' "memory held by the server: $(head -c 300 "$TMP/out")"
