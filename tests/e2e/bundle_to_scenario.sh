# scripts/bundle-to-scenario (issue 37 item 5): every scenario bundled
# under the mock, the bundle turned into a scenario of its own, and the
# triage under the mock of that new scenario gives the same findings (ids,
# severities, subjects) and the same plan as the triage that recorded the
# bundle (its report.json: the bundle is written by a triage, the same one
# `--json` prints; bundle_replay_scenarios.sh checks that), and the same
# GPUs value by value (what NVML answered: the converter left nothing out
# the mock can answer). No scenario is skipped: a library that is absent
# (no-driver, no-gpu), an init that fails (malformed's 999), hung and lost
# GPUs are all recorded in a report and given back. One more scenario here
# holds what none of tests/scenarios has: a handle refused, injected call
# errors, a GPU lost part way, the deprecated reset fields, a v2-only fabric,
# a threshold on another scale, a growing NVLink counter, graphics processes
# without a size, a sw power cap share and a topology with an odd pair.
# Then what the converter refuses: a hostile archive writes nothing outside
# its target, a truncated bundle, a file that is no bundle, an existing
# target, a bad name.
source "$(dirname "$0")/common.sh"

B2S="$GT_SOURCE_DIR/scripts/bundle-to-scenario"
mkdir -p "$TMP/scen" "$TMP/edge"
ln -s "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8/root" "$TMP/edge/root"
"$PYTHON" - "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8/scenario.json" \
  "$TMP/edge/scenario.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = s["devices"]
d[1]["handle_error"] = "NO_PERMISSION"
d[2]["errors"] = {"nvmlDeviceGetPowerUsage": "UNKNOWN", "nvmlDeviceGetTemperatureV": "UNKNOWN"}
d[3].pop("recovery_action", None)  # R550 answers none (docs/physics.md D2)
d[3]["fields"] = {"230": "NOT_SUPPORTED", "226": 1, "227": 0}
d[4]["nvlinks"]["links"] = {"2": {"errors": {"replay": {"per_s": 50}}}, "17": {"active": False}}
d[5]["errors"] = {"nvmlDeviceGetMemoryInfo": "GPU_IS_LOST"}
d[6]["fabric"]["max_struct_version"] = 2
d[6]["temperature_thresholds_c"]["shutdown"] = 5
d[7]["processes"] = [{"pid": 4242, "used_mib": None, "type": "graphics"},
                     {"pid": 4243, "used_mib": 1000, "type": "compute+graphics"}]
d[7]["utilization"] = {"gpu": [10, 20, 90], "memory": [1]}
d[0]["limit_time_ns"]["sw_power_cap"] = {"per_s": 0.25e9}
s["topology"] = {"default": {"level": "node", "p2p": {"read": "ok", "write": "ok", "nvlink": "ok"}},
                 "pairs": {"0,4": {"level": "system",
                                   "p2p": {"read": "chipset_not_supported", "nvlink": None}}}}
s["description"] = "the converter's rarer cases"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY

# one NAME SCENARIO: bundle, convert, triage the new scenario, compare.
# Both triages at a 200 ms sample window (two samples, the fewest that still
# call a server idle; the window is not what is tested here). Scenarios run
# three at a time (each triage mostly waits out its window; one at a time
# under ASan); one that differs is run again
# alone, since a loaded machine can push a GPU past the 2 s timeout in
# either triage.
one() {
  local name="$1" scenario="$2" w="$TMP/w/$1"
  rm -rf "$w" "$TMP/scen/$name-2" "$TMP/bad/$name"
  mkdir -p "$w"
  if ! "$WITH_MOCK" "$scenario" "$TOOL" bundle -o "$w/$name.tar.zst" --no-state --timeout 2s \
    --sample 200ms >"$w/out" 2>"$w/err"; then
    echo "$name: bundle failed: $(cat "$w/err")" >"$TMP/bad/$name"
    return
  fi
  if ! "$B2S" "$w/$name.tar.zst" "$name-2" --into "$TMP/scen" >"$w/out" 2>"$w/err"; then
    echo "$name: bundle-to-scenario failed: $(cat "$w/err")" >"$TMP/bad/$name"
    return
  fi
  tar -xOf "$w/$name.tar.zst" report.json >"$w/recorded.json"
  "$WITH_MOCK" "$TMP/scen/$name-2" "$TOOL" --json --no-state --timeout 2s --sample 200ms \
    >"$w/again.json" 2>"$w/err" || true
  "$PYTHON" - "$w/recorded.json" "$w/again.json" 2>"$w/diff" <<'PY' ||
import json, re, sys
# The mock's temporary folder differs between two runs (no-driver names it).
a, b = (json.loads(re.sub(r"/tmp/with-mock\.[A-Za-z0-9]+", "MOCK", open(p).read()))
        for p in sys.argv[1:3])
key = lambda r: sorted((f["id"], f["severity"], json.dumps(f["subject"], sort_keys=True))
                       for f in r["findings"])
if key(a) != key(b) or a["plan"] != b["plan"]:
    print(set(key(a)) ^ set(key(b)), "same plan:", a["plan"] == b["plan"], file=sys.stderr)
    sys.exit(1)
# NVML's answers value by value. Shares of the window are timed: within
# 0.05; an NVLink counter growing in the window: within 5 counts.
diffs = []
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            walk(x.get(k, "(absent)"), y.get(k, "(absent)"), f"{path}.{k}")
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (p, q) in enumerate(zip(x, y)):
            walk(p, q, f"{path}[{i}]")
    elif x != y:
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y))
        if numbers and isinstance(x, float) and abs(x - y) <= 0.05:
            return
        if numbers and ".nvlinks[" in path and ".errors" in path and abs(x - y) <= 5:
            return
        diffs.append(f"{path}: {json.dumps(x)} then {json.dumps(y)}")
for k in ("driver_version", "nvml_version", "cuda_driver_version", "gpu_count", "gpus"):
    walk(a.get(k), b.get(k), k)
for k in ("loaded", "initialized", "init_return_code", "init_error", "library_version",
          "missing_symbols"):
    walk(a["nvml"].get(k), b["nvml"].get(k), "nvml." + k)
if diffs:
    print("; ".join(diffs[:6]), file=sys.stderr)
    sys.exit(1)
PY
    echo "$name: $(cat "$w/diff")" >"$TMP/bad/$name"
}
mkdir -p "$TMP/bad" "$TMP/w"
parallel=3
[[ -z "${GT_SANITIZED:-}" ]] || parallel=1  # ASan's slower calls need the timeout's margin
jobs_running=0
scenario_of() { [[ "$1" == edge-cases ]] && echo "$TMP/edge" || echo "$1"; }
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/ edge-cases; do
  name=$(basename "$dir")
  [[ "$name" == edge-cases || -f "$dir/scenario.json" ]] || continue
  one "$name" "$(scenario_of "$name")" &
  if ((++jobs_running >= parallel)); then
    wait -n
    jobs_running=$((jobs_running - 1))
  fi
done
wait
for f in "$TMP"/bad/*; do
  [[ -e "$f" ]] && one "$(basename "$f")" "$(scenario_of "$(basename "$f")")"
done
bad=()
for f in "$TMP"/bad/*; do
  [[ -e "$f" ]] || continue
  cat "$f" >&2
  bad+=("$(basename "$f")")
done
((${#bad[@]} == 0)) || fail "triaged differently from their bundle's scenario: ${bad[*]}"

# The scenario made: root/ verbatim (a link stays a link), scenario.json
# saying where it came from and what the report does not carry.
src="$TMP/scen/one-gpu-lost-2"
[[ -f "$src/root/proc/stat" ]] || fail "root/ not written"
"$PYTHON" - "$src/scenario.json" <<'PY' || fail "scenario.json of one-gpu-lost"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["description"].startswith("made from bundle one-gpu-lost.tar.zst at "), s["description"]
assert "not recorded: PCI subsystem ids" in s["description"], s["description"]
assert s["devices"][3] == {"lost": True}, s["devices"][3]
assert s["library_version"] == "570.133.20" and s["cuda_driver_version"], s
PY

# Refusals: exit 2, one line on stderr, nothing written.
refused() {  # refused WHAT ARGS...: the converter must refuse with exit 2
  local what="$1"
  shift
  set +e
  "$B2S" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  [[ "$RC" == 2 ]] || fail "$what: exit $RC, want 2: $(cat "$TMP/err")"
  [[ $(wc -l <"$TMP/err") == 1 ]] || fail "$what: not one line: $(cat "$TMP/err")"
}
refused "an existing target" "$TMP/w/story/story.tar.zst" story-2 --into "$TMP/scen"
grep -q "exists" "$TMP/err" || fail "existing target: $(cat "$TMP/err")"
head -c 3000 "$TMP/w/story/story.tar.zst" >"$TMP/cut.tar.zst"
refused "a truncated bundle" "$TMP/cut.tar.zst" cut --into "$TMP/scen"
grep -q "not a readable bundle" "$TMP/err" || fail "truncated: $(cat "$TMP/err")"
[[ ! -e "$TMP/scen/cut" ]] || fail "a truncated bundle left a folder"
echo "not a bundle" >"$TMP/plain.txt"
refused "a text file" "$TMP/plain.txt" plain --into "$TMP/scen"
refused "a bad NAME" "$TMP/w/story/story.tar.zst" Bad_Name --into "$TMP/scen"
mkdir -p "$TMP/notbundle/root" && echo '{}' >"$TMP/notbundle/report.txt"
tar -C "$TMP/notbundle" -czf "$TMP/notbundle.tar.gz" report.txt root
refused "an archive without report.json" "$TMP/notbundle.tar.gz" nb --into "$TMP/scen"
grep -q "no report.json" "$TMP/err" || fail "no report.json: $(cat "$TMP/err")"
set +e
"$B2S" "$TMP/w/story/story.tar.zst" >/dev/null 2>&1
RC=$?
"$B2S" "$TMP/w/story/story.tar.zst" x --bogus >/dev/null 2>&1
RC2=$?
set -e
[[ "$RC" == 64 && "$RC2" == 64 ]] || fail "usage errors exit $RC, $RC2, want 64"
"$B2S" "$TMP/w/story/story.tar.zst" story-2 --into "$TMP/scen" --force >/dev/null ||
  fail "--force did not replace the target"

# Hostile archives: a member ../x, an absolute member, a member below a
# link out of the folder. Each is refused and nothing is written anywhere.
mkdir -p "$TMP/hostile/in"
"$PYTHON" - "$TMP/w/story/recorded.json" "$TMP/hostile" <<'PY'
import io, sys, tarfile
report = open(sys.argv[1], "rb").read()
def add(tar, name, data=b"x", link=None):
    info = tarfile.TarInfo(name)
    if link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, link
        tar.addfile(info)
    else:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
for case, extra in (("dotdot", [("../x",), ("root/../../x",)]),
                    ("absolute", [("/tmp/gt-b2s-absolute-x",)]),
                    ("via-link", [("root/out", b"", "../../.."), ("root/out/x",)])):
    with tarfile.open(f"{sys.argv[2]}/{case}.tar.gz", "w:gz") as tar:
        add(tar, "report.json", report)
        add(tar, "root/proc/stat", b"btime 1\n")
        for e in extra:
            add(tar, *e)
PY
for case in dotdot absolute via-link; do
  refused "a hostile archive ($case)" "$TMP/hostile/$case.tar.gz" h --into "$TMP/hostile/in"
done
[[ ! -e "$TMP/hostile/x" && ! -e "$TMP/x" && ! -e /tmp/gt-b2s-absolute-x ]] ||
  fail "a hostile member was written outside the target"
[[ -z "$(ls -A "$TMP/hostile/in")" ]] || fail "a hostile archive left: $(ls -A "$TMP/hostile/in")"
exit 0
