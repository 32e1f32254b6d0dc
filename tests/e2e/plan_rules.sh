# The plan rules (docs/checks.md "The plan"), over every scenario and every
# real kernel-log fixture: no step for a positive (ok) finding or a note, no
# step without a finding, no "no action needed" beside a drain/reset/reseat/
# RMA step, steps in the order of what blocks recovery; after-crash's first
# step stops sglang.service. Scenarios at a 200 ms window: two samples, the
# fewest that still call a server idle (their findings are the default 1 s's).
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
# One step per GPU: a GPU with several findings about its hardware has one
# step, and no other step; no step both sends a GPU to RMA (out of service)
# and resets or reboots it.
def norm(bus): return bus.lower()[-12:] if bus else None
bus_of = {g["index"]: g.get("pci_bus_id") for g in d.get("gpus", [])}
joinable = lambda i: i.startswith(("gpu.", "ecc.", "nvlink.", "fabric.", "thermal.")) or i == "pcie.link_downgraded"
per_gpu = {}
for f in d["findings"]:
    if f["severity"] == "ok" or not joinable(f["id"]) or f["id"] in ("gpu.count_mismatch",):
        continue
    s = f["subject"]
    key = norm(s.get("pci_bus_id") or bus_of.get(s.get("gpu_index")))
    if key:
        per_gpu.setdefault(key, []).append(f)
step_gpus = [norm(p.get("gpu")) for p in d["plan"] if p.get("gpu")]
assert len(step_gpus) == len(set(step_gpus)), (name, "two steps for one GPU", step_gpus)
for key, fs in per_gpu.items():
    if len(fs) >= 2 and any(f["severity"] in ("warning", "critical") for f in fs):
        assert step_gpus.count(key) == 1, (name, "no single step for GPU", key, [f["id"] for f in fs])
for p in d["plan"]:
    rma = p["finding_ids"][0] in ("ecc.remap_failure", "ecc.retired_pages_limit", "ecc.remap_no_spare") or (p["finding_ids"][0] == "gpu.repeat_offender" and sev.get("gpu.repeat_offender") == "critical")
    if rma or "out of service" in p["text"]:
        assert not any("nvidia-smi -r" in c or c.endswith("reboot") for c in p["commands"]), (name, "RMA beside a reset/reboot", p)
print(name, "ok", len(d["plan"]), "steps")
PY
}

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 200ms
  check_plan "$s"
done
for log in "$GT_SOURCE_DIR"/tests/fixtures/real/kernel-log/*.log; do
  run healthy-h100x8 --json --sample 0 --kernel-log "$log"
  check_plan "$(basename "$log")"
done
run after-crash --json --sample 200ms
# The server that blocks the job is the first and only step (no CUDA failure: issue 46).
json_check "d['plan'][0]['commands'] == ['${SUDO}systemctl stop sglang.service', '${SUDO}systemctl disable sglang.service']" "after-crash: stopping sglang.service"
json_check "len(d['plan']) == 1" "after-crash: nothing else to do"
run upgrade-under-server --json --sample 0
# Drain the servers on the old libraries, then reboot: the NVML step says both.
json_check "d['plan'][0]['finding_ids'] == ['nvml.version_mismatch'] and d['plan'][0]['text'].find('First let pid 3187') >= 0" "upgrade: drain first, in the first step"
run healthy-h100x8 --json --sample 0
json_check 'd["plan"] == []' "a healthy node has nothing to do"
