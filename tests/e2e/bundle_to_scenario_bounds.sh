# scripts/bundle-to-scenario under hostile input (issue 48 item 6): every
# read bounded and the bound said, one line and exit 2, never a traceback.
#  - a GNU long-name or pax header body is read whole by tarfile: one of
#    8 MiB (gigabytes in the reported archive: 43 KB gave 2.4 GB RSS) is
#    refused at 64 KiB, before it is read;
#  - whether a member lies below a link was links x members (20,000 links:
#    70 s): 30,000 links and 30,000 files are checked in one pass, and a
#    member below a link is still refused, in either order;
#  - a report.json whose values are of another type (a string where an
#    object belongs) or a time out of range gave a Python traceback.
source "$(dirname "$0")/common.sh"
B2S="$GT_SOURCE_DIR/scripts/bundle-to-scenario"

refused() {  # refused WHAT WANT ARGS...: exit 2, one line holding WANT, nothing written
  local what="$1" want="$2"
  shift 2
  set +e
  "$B2S" "$@" --into "$TMP/in" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  [[ "$RC" == 2 ]] || fail "$what: exit $RC, want 2: $(head -c 2000 "$TMP/err")"
  [[ $(wc -l <"$TMP/err") == 1 ]] || fail "$what: not one line: $(head -c 2000 "$TMP/err")"
  grep -qF -- "$want" "$TMP/err" || fail "$what: no '$want' in: $(head -c 400 "$TMP/err")"
  [[ -z "$(ls -A "$TMP/in" 2>/dev/null)" ]] || fail "$what: left $(ls -A "$TMP/in")"
}

"$PYTHON" - "$TMP" <<'PY'
import io, json, sys, tarfile
d = sys.argv[1]
report = {"schema": "gpu-triage/report", "source": "nvml", "gpus": [],
          "nvml": {"initialized": True}}
def bundle(name, rep, extra=(), fmt=tarfile.GNU_FORMAT):
    with tarfile.open(f"{d}/{name}.tar.gz", "w:gz", format=fmt) as tar:
        data = json.dumps(rep).encode()
        info = tarfile.TarInfo("report.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info, io.BytesIO(b""))
bundle("plain", report)
long_name = tarfile.TarInfo("root/" + "a" * (8 << 20))
bundle("long-name", report, [long_name])
pax = tarfile.TarInfo("root/x")
pax.pax_headers = {"comment": "c" * (8 << 20)}
bundle("pax", report, [pax], tarfile.PAX_FORMAT)
bundle("nvml-a-string", dict(report, nvml="x"))
bundle("gpus-of-numbers", dict(report, gpus=[1, 2]))
bundle("time-out-of-range", dict(report, collected_at_unix_ms=10**30))
PY
mkdir -p "$TMP/in"
"$B2S" "$TMP/plain.tar.gz" plain --into "$TMP/ok" >/dev/null || fail "a plain bundle was refused"
refused "an 8 MiB GNU long name" "a GNU long-name header of 8388614 bytes, over the bound of 64 KiB" \
  "$TMP/long-name.tar.gz" h
refused "an 8 MiB pax header" "a pax header of" "$TMP/pax.tar.gz" h
grep -qF "over the bound of 64 KiB" "$TMP/err" || fail "pax: $(cat "$TMP/err")"
refused "nvml a string" "report.json is not as gpu-triage writes it: AttributeError" \
  "$TMP/nvml-a-string.tar.gz" h
refused "GPUs that are numbers" "report.json is not as gpu-triage writes it" \
  "$TMP/gpus-of-numbers.tar.gz" h
"$B2S" "$TMP/time-out-of-range.tar.gz" t --into "$TMP/ok" >/dev/null 2>"$TMP/err" ||
  fail "a time out of range: $(cat "$TMP/err")"
grep -q "made from bundle time-out-of-range.tar.gz at an unknown time" "$TMP/ok/t/scenario.json" ||
  fail "time out of range: $(head -c 400 "$TMP/ok/t/scenario.json")"

# Links x members, in one pass; the check is called in-process (writing
# 60,000 entries would measure the disk).
"$PYTHON" - "$B2S" <<'PY' || fail "links and members"
import importlib.machinery, importlib.util, sys, tarfile
loader = importlib.machinery.SourceFileLoader("b2s", sys.argv[1])
b2s = importlib.util.module_from_spec(importlib.util.spec_from_loader("b2s", loader))
loader.exec_module(b2s)
def link(name):
    t = tarfile.TarInfo(name)
    t.type, t.linkname = tarfile.SYMTYPE, "x"
    return (t, None)
def file(name):
    return (tarfile.TarInfo(name), b"")
members = []
for i in range(30000):
    members += [link(f"root/l{i}"), file(f"root/d/f{i}")]
assert len(b2s.check_members(members, "b")) == 60000
for hostile in (members + [file("root/l29999/x")], [file("root/l7/x")] + members):
    try:
        b2s.check_members(hostile, "b")
        raise SystemExit("a member below a link was not refused")
    except b2s.Refused as e:
        assert "below the link 'root/l" in str(e), e
PY
exit 0
