# Every finding id the tool emits has its row in the check catalogue
# (src/checks/registry.cc, one row per line): the ids, joined ids and plan
# ids of every scenario run here, and those pinned for every real capture
# and kernel-log fixture in tests/golden/scenario_findings.txt. The rows'
# docs, man page and alert entries are checked by the unit tests
# (src/checks/catalogue_test.cc). The check is proved by planting an id
# without a row: it must be reported.
source "$(dirname "$0")/common.sh"

: >"$TMP/ids"
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 0 --no-state
  [[ -s "$TMP/out" ]] || fail "$s: no JSON output (exit $RC): $(head -c 500 "$TMP/err")"
  "$PYTHON" - "$TMP/out" "$s" >>"$TMP/ids" <<'PY' || fail "$s: unreadable JSON"
import json, sys
d = json.load(open(sys.argv[1]))
for f in d.get("findings", []):
    for i in [f["id"]] + f.get("joined_ids", []):
        print(f"scenario/{sys.argv[2]}\t{i}")
for p in d.get("plan", []):
    for i in p.get("finding_ids", []):
        print(f"scenario/{sys.argv[2]} plan\t{i}")
PY
done
# The golden's finding lines: NAME, severity, id, subject (not "exit N").
awk -F'\t' 'NF >= 3 && $2 !~ /^exit / { print $1 "\t" $3 }' \
  "$GT_SOURCE_DIR/tests/golden/scenario_findings.txt" >>"$TMP/ids"
(($(wc -l <"$TMP/ids") > 100)) || fail "too few ids collected: $(wc -l <"$TMP/ids")"

# uncatalogued IDS_FILE: prints each id without a row, where it came from.
uncatalogued() {
  "$PYTHON" - "$GT_SOURCE_DIR/src/checks/registry.cc" "$1" <<'PY'
import re, sys
rows = re.findall(r'^\s*\{"([a-z_]+\.[a-z_0-9.*]+)", "', open(sys.argv[1]).read(), re.M)
if len(rows) < 60:
    sys.exit(f"only {len(rows)} catalogue rows read from registry.cc")
exact = set(r for r in rows if not r.endswith(".*"))
prefixes = [r[:-1] for r in rows if r.endswith(".*")]
for line in open(sys.argv[2]):
    where, i = line.rstrip("\n").split("\t")
    if i not in exact and not any(i.startswith(p) for p in prefixes):
        print(f"{where}: {i} has no catalogue row")
PY
}

uncatalogued "$TMP/ids" >"$TMP/missing" || fail "catalogue unreadable: $(cat "$TMP/missing")"
[[ ! -s "$TMP/missing" ]] || fail "emitted ids without a catalogue row:
$(sort -u "$TMP/missing")"

# The check works: a planted id is reported, a numbered one is not.
printf 'planted\tgpu.planted_for_test\nplanted\tgpu.xid.13\n' >"$TMP/planted"
uncatalogued "$TMP/planted" >"$TMP/found"
[[ "$(cat "$TMP/found")" == "planted: gpu.planted_for_test has no catalogue row" ]] ||
  fail "a planted id without a row was not reported: $(cat "$TMP/found")"
echo "every emitted id has its row ($(cut -f2 "$TMP/ids" | sort -u | wc -l) distinct ids)"
