# Fleet views built from files: --reports DIR (saved --json reports) and
# --smi-xml DIR (captures). --drift names exactly the hosts and properties
# that differ; unknown values are no difference; a file that is not a
# report or a capture is named and never stops the rest; the same Xid 31 on
# five hosts within a minute is one fleet finding, not five GPU findings.
source "$(dirname "$0")/common.sh"

run healthy-h100x8 --json --sample 0
cp "$TMP/out" "$TMP/base.json"
mkdir -p "$TMP/reports" "$TMP/storm" "$TMP/captures"
"$PYTHON" - "$TMP" <<'PY'
import copy, json, sys
tmp = sys.argv[1]
base = json.load(open(f"{tmp}/base.json"))
for g in base["gpus"]:
    g["vbios_version"] = "96.00.99.00.01"
def write(folder, name, report):
    report = copy.deepcopy(report)
    report["hostname"] = name
    json.dump(report, open(f"{tmp}/{folder}/{name}.json", "w"))
for i in range(1, 7):
    r = copy.deepcopy(base)
    if i == 3:  # another driver: module and library move with it
        for k in ("driver_version", "kernel_module_version"):
            r[k] = "580.95.05"
        r["nvml"]["library_version"] = "580.95.05"
    if i == 5:
        for g in r["gpus"]:
            g["vbios_version"] = "96.00.74.00.0B"
    if i == 6:  # says nothing of its VBIOS: not a difference
        for g in r["gpus"]:
            g["vbios_version"] = None
    write("reports", f"node0{i}", r)
future = copy.deepcopy(base)
future["schema_version"] = 3
write("reports", "node07", future)
open(f"{tmp}/reports/node08.json", "w").write("<html>502 Bad Gateway</html>")
# Five hosts with Xid 31 in the same minute, one an hour later.
for i, t in enumerate(["03:12:05", "03:12:19", "03:12:30", "03:12:41", "03:12:58", "04:20:00"]):
    r = copy.deepcopy(base)
    r["verdict"] = "WARNING"
    r["kernel_log"] = {"sources": [], "unparsed_nvidia_lines": 0, "events": [{
        "kind": "xid", "code": 31, "pci_bus_id": "0000:19:00.0", "boot": "current",
        "time": f"2026-11-30T{t}Z", "count": 2}]}
    r["findings"].append({"id": "gpu.xid.31", "severity": "warning",
                          "subject": {"kind": "gpu", "gpu_index": 0}, "title": "Xid 31"})
    write("storm", f"job{i}", r)
PY

# Drift from saved reports.
"$TOOL" --reports "$TMP/reports" --drift --json >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
json_check 'sorted((p["property"], tuple(h for v in p["differing"] for h in v["hosts"])) for p in d["drift"]["differing"]) == [("driver_version", ("node03",)), ("kernel_module_version", ("node03",)), ("nvml_library_version", ("node03",)), ("vbios_version", ("node05",))]' "exactly node03's driver and node05's VBIOS"
json_check '[p["majority"]["value"] for p in d["drift"]["differing"] if p["property"] == "vbios_version"] == ["96.00.99.00.01"]'
json_check '[p["unknown_hosts"] for p in d["drift"]["differing"] if p["property"] == "vbios_version"] == [["node06"]]' "node06 did not say: listed, not a difference"
json_check 'sorted(n["host"] for n in d["drift"]["not_compared"]) == ["node07", "node08"]' "the future schema and the garbage file are named"
json_check 'd["drift"]["hosts_compared"] == 6 and d["schema"] == "gpu-triage/fleet"'
json_check '[h["verdict"] for h in d["hosts"] if h["host"] == "node08"] == ["UNKNOWN"]'
"$TOOL" --reports "$TMP/reports" --drift >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
expect_rc 3  # node08 answered nothing usable: UNKNOWN is the worst here
expect_out_contains "drift: driver_version: 550.90.07 on 5 hosts; differs: 580.95.05 on node03"
expect_out_contains "drift: not compared: node08:"

# Correlation across hosts.
"$TOOL" --reports "$TMP/storm" --json >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
json_check 'len(d["fleet_findings"]) == 1 and d["fleet_findings"][0]["hosts"] == ["job0", "job1", "job2", "job3", "job4"]' "one fleet finding for the five"
json_check '[h["verdict"] for h in d["hosts"]] == ["OK"] * 5 + ["WARNING"]' "their own Xid 31 is explained; the late one stands"
json_check 'd["drift"] is None'
expect_rc 1
"$TOOL" --reports "$TMP/storm" >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
expect_out_contains "fleet: WARNING fleet.xid_correlated.31: Xid 31 on 5 hosts within 54 s: likely the job, not one GPU: job0, job1, job2, job3, job4"

# A folder of captures, with a file that is not one.
cp "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/netdata-rtx-4090-535.86.05.xml "$TMP/captures/a.xml"
cp "$GT_SOURCE_DIR"/tests/fixtures/real/nvidia-smi-xml/netdata-rtx-4090-535.86.05.xml "$TMP/captures/b.xml"
echo "not xml" >"$TMP/captures/notes.txt"
"$TOOL" --smi-xml "$TMP/captures" --drift --json >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
json_check '[h["host"] for h in d["hosts"]] == ["a", "b", "notes"] and d["hosts"][2]["verdict"] == "UNKNOWN"' "every file is a host; the text file is named"
json_check 'd["drift"]["differing"] == [] and d["drift"]["hosts_compared"] == 2' "two copies of one capture do not drift"
# A capture's line is --oneline's for that capture: gpus=N/- (no bus read).
"$TOOL" --smi-xml "$TMP/captures/a.xml" --oneline >"$TMP/one" 2>/dev/null || true
"$TOOL" --smi-xml "$TMP/captures" >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
grep -q "gpus=1/- " "$TMP/one" || fail "--oneline of a capture: $(cat "$TMP/one")"
expect_out_contains "a: $(cat "$TMP/one")"
expect_out_contains "b: $(cat "$TMP/one")"

# --drift needs a fleet.
"$TOOL" --drift >"$TMP/out" 2>"$TMP/err" && RC=0 || RC=$?
expect_rc 64
grep -q -- "a fleet needs hosts" "$TMP/err" || fail "no usage message: $(cat "$TMP/err")"
