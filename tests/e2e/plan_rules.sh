# The plan rules (docs/checks.md "The plan"), over every scenario and every
# real kernel-log fixture: no step for a positive (ok) finding or a note, no
# step without a finding, no "no action needed" beside a drain/reset/reseat/
# RMA step, steps in the order of what blocks recovery; after-crash's first
# step stops sglang.service.
source "$(dirname "$0")/common.sh"

check_plan() {  # check_plan NAME (the report is in $TMP/out)
  "$PYTHON" - "$TMP/out" "$1" <<'PY' || fail "$1: plan rules broken"
import json, re, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
sev = {f["id"]: f["severity"] for f in d["findings"]}
order = ["nvml", "critical", "hardware", "memory", "disk", "hygiene"]
def group(fid):
    s = sev[fid]
    if fid.startswith("nvml."): return 0
    if s == "critical": return 1
    if fid.startswith(("ecc.", "gpu.")) or fid == "pcie.link_downgraded": return 2
    if fid.startswith("memory."): return 3
    if fid.startswith("disk."): return 4
    return 5
last = 0
texts = [p["text"] for p in d["plan"]]
for p in d["plan"]:
    assert p["finding_ids"], (name, "a step without a finding", p["text"])
    for fid in p["finding_ids"]:
        assert sev.get(fid) not in ("ok", None), (name, "a step for an ok or unknown finding", fid)
    g = min(group(f) for f in p["finding_ids"])
    assert g >= last, (name, "out of order", texts)
    last = g
    assert "output survived" not in p["text"], (name, "generic data step")
cmds = [tuple(p["commands"]) for p in d["plan"] if p["commands"]]
assert len(cmds) == len(set(cmds)), (name, "two steps with the same commands (one cause, one step)", cmds)
drastic = any(re.search(r"\b(drain|reset|reseat|RMA|reboot)\b", t, re.I) for t in texts)
assert not (drastic and any("no hardware action needed" in t or "no action needed" in t for t in texts)), (name, "contradiction", texts)
print(name, "ok", len(d["plan"]), "steps")
PY
}

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 400ms
  check_plan "$s"
done
for log in "$GT_SOURCE_DIR"/tests/fixtures/real/kernel-log/*.log; do
  run healthy-h100x8 --json --sample 0 --kernel-log "$log"
  check_plan "$(basename "$log")"
done
run after-crash --json --sample 400ms
json_check "d['plan'][0]['commands'] == ['${SUDO}systemctl stop sglang.service', '${SUDO}systemctl disable sglang.service']" "after-crash: stopping sglang.service comes first"
run healthy-h100x8 --json --sample 0
json_check 'd["plan"] == []' "a healthy node has nothing to do"
