# fleet --reports DIR (issue 48 item 17): a report's findings win over its
# verdict word (one marked OK holding a critical is counted CRITICAL, and
# says so), and several reports of one host are one host, the newest
# (its note names the older files); the fleet's exit code follows.
source "$(dirname "$0")/common.sh"

run healthy-h100x8 --json --sample 0
cp "$TMP/out" "$TMP/base.json"
mkdir -p "$TMP/r"
"$PYTHON" - "$TMP" <<'PY'
import copy, json, sys
tmp = sys.argv[1]
base = json.load(open(f"{tmp}/base.json"))
assert base["verdict"] == "OK", base["verdict"]
critical = {"id": "gpu.lost", "severity": "critical",
            "subject": {"kind": "gpu", "gpu_index": 0}, "title": "GPU 0 is lost"}
def write(name, host, at, findings=()):
    r = copy.deepcopy(base)
    r["hostname"] = host
    r["collected_at_unix_ms"] = at
    r["findings"] = list(findings) + r["findings"]
    json.dump(r, open(f"{tmp}/r/{name}.json", "w"))
write("liar", "node-liar", 1_700_000_000_000, [critical])  # "OK" with a critical
# node-b three times: the newest is OK, the older ones held the critical.
write("b-monday", "node-b", 1_700_000_000_000, [critical])
write("b-wednesday", "node-b", 1_700_200_000_000)
write("b-tuesday", "node-b", 1_700_100_000_000, [critical])
PY
set +e
"$TOOL" fleet --reports "$TMP/r" --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 2
json_check 'sorted(h["host"] for h in d["hosts"]) == ["node-b", "node-liar"]' "one host per name"
json_check '[h["verdict"] for h in d["hosts"] if h["host"] == "node-liar"] == ["CRITICAL"]' "the findings win"
json_check '[h["verdict"] for h in d["hosts"] if h["host"] == "node-b"] == ["OK"]' "the newest report counts"
json_check 'any("not counted: b-monday.json, b-tuesday.json" in w for h in d["hosts"] if h["host"] == "node-b" for w in h["report"]["warnings"])' "the older files are named"
json_check 'any("the report says OK but holds a critical finding: counted CRITICAL" in w for h in d["hosts"] if h["host"] == "node-liar" for w in h["report"]["warnings"])'

# Without the liar: the newest node-b is OK, so is the fleet.
rm "$TMP/r/liar.json"
set +e
"$TOOL" fleet --reports "$TMP/r" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0
exit 0
