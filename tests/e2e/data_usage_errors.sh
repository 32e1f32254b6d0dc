# gpu-triage data: bad input gives a clear message and a defined exit code.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch/speculators"
check_rc() {
  local want="$1"; shift
  set +e
  "$TOOL" data "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  expect_rc "$want"
}
check_rc 2 "$TMP/no-such-dir"
grep -q "cannot open directory $TMP/no-such-dir: No such file or directory" "$TMP/err" || fail "message: $(cat "$TMP/err")"
# A folder whose name has a secret-like component keeps the reason (it was
# "<redacted>", read as a "keys: VALUE" header, before the new-operator
# trial of issues 48 and 49).
check_rc 2 "$TMP/keys"
grep -q "cannot open directory $TMP/keys: No such file or directory" "$TMP/err" || fail "message: $(cat "$TMP/err")"
check_rc 64 "$REAL" --range 5:3
check_rc 64 "$REAL" --range abc
check_rc 64 "$REAL" --expect 3 --range 0:3
check_rc 64 "$REAL" --layout nonsense
check_rc 64 "$REAL" --algo md5 --write-manifest "$TMP/m"
check_rc 64
mkdir "$TMP/empty"
check_rc 3 "$TMP/empty"
check_rc 1 "$TMP/empty" --expect 2
# An unreadable file is an I/O problem (exit 2), when not running as root.
if [[ "$(id -u)" != 0 ]]; then
  cp -r "$REAL" "$TMP/d"; chmod 000 "$TMP/d/data_0.pt"
  check_rc 2 "$TMP/d"
fi
# A file name that is not UTF-8 still gives valid JSON (U+FFFD), and -0 the raw name.
mkdir "$TMP/odd"; : > "$TMP/odd/$(printf 'data_\xff.ckpt')"
check_rc 1 "$TMP/odd" --json
json_check 'd["bad"][0]["problem"] == "empty" and "\ufffd" in d["bad"][0]["path"]'
check_rc 1 "$TMP/odd" -0
[[ "$(tr '\0' '\n' < "$TMP/out")" == "$TMP/odd/$(printf 'data_\xff.ckpt')" ]] || fail "-0 raw name"
# --expect is a range, never a list of indices: past the stated limit it is
# refused at once, and within it a huge range costs one run, not memory
# (it used to enumerate every index: gigabytes for --expect 4294967295).
bounded() {  # the tool under 400 MB of address space and 5 s
  set +e
  (limit_memory 400000; exec timeout 5 "$TOOL" data "$@") >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}
bounded "$TMP/empty" --expect 4294967295
expect_rc 64
grep -q "^gpu-triage data: --expect 4294967295 names 4294967295 samples, over the limit of 100000000$" "$TMP/err" || fail "message: $(cat "$TMP/err")"
bounded "$TMP/empty" --range 7:4294967302 --json
expect_rc 64
bounded "$TMP/empty" --expect 100000000 --json
expect_rc 1
json_check 'd["summary"]["missing"] == 100000000 and len(d["missing"]) == 1000000 and d["missing"][-1] == 999999 and d["missing_runs"] == [{"first": 0, "last": 99999999}]'
bounded "$TMP/empty" --expect 100000000
expect_rc 1
expect_out_contains "WARNING data: 0 files, 0 intact, 0 bad, 100000000 missing"
expect_out_contains "not started: 0-99999999 (100000000 samples above the highest index)"
# Peak RSS under 100 MB at the limit; the refusal is immediate.
/usr/bin/time -f %M -o "$TMP/rss" "$TOOL" data "$TMP/empty" --expect 100000000 --json >/dev/null || true
rss_kb=$(tail -1 "$TMP/rss")
((rss_kb < 100000)) || fail "peak RSS $rss_kb KB at --expect 100000000"
t0=$(date +%s%N)
bounded "$TMP/empty" --expect 4294967295 --resume-list "$TMP/resume.txt"
ms=$((($(date +%s%N) - t0) / 1000000))
expect_rc 64
((ms < 1000)) || fail "--expect 4294967295 took $ms ms"
[[ ! -e "$TMP/resume.txt" ]] || fail "a resume list was written"
