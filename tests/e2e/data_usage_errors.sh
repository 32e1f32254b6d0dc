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
