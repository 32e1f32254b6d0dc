# Issue 48 item 9: run by a user other than root, `data --move-bad-to`
# cannot read another user's /proc/PID/fd. A root process still writing a
# truncated file under DIR cannot be seen: nothing is moved, the refusal
# says other users' open files could not be checked (exit 2), and the
# progress line says whether writing stopped is unknown.
source "$(dirname "$0")/common.sh"
[[ "$(id -u)" == 0 ]] || { echo "SKIP: needs root to run a writer of another user"; exit 0; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 0; }
chmod 755 "$TMP"
D="$TMP/d"
cp -r "$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge" "$D"
head -c 3000 "$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge/rows_0-4/data_3.ckpt" >"$D/rows_0-4/data_3.ckpt"
find "$D" -type f -exec touch -d '2 hours ago' {} +
chmod -R a+rwX "$D"
mkdir -m 777 "$TMP/dst"
# The writer: root's, holding the truncated file open for writing.
"$PYTHON" -c 'import sys,time; f=open(sys.argv[1],"ab"); print("ready", flush=True); time.sleep(60)' \
  "$D/rows_0-4/data_3.ckpt" >"$TMP/writer" &
WRITER=$!
trap 'kill $WRITER 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do grep -q ready "$TMP/writer" && break; sleep 0.1; done
as_nobody() {
  set +e
  setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOL" data "$D" --expect 6 "$@" >"$TMP/out" 2>&1
  RC=$?
  set -e
}
as_nobody --move-bad-to "$TMP/dst/bad"
[[ -f "$D/rows_0-4/data_3.ckpt" && ! -e "$TMP/dst/bad/rows_0-4/data_3.ckpt" ]] ||
  fail "a file another user's process writes was moved: $(cat "$TMP/out")"
expect_rc 2
expect_out_contains "--move-bad-to: nothing moved: the open files of"
expect_out_contains "of other users could not be checked"
expect_out_lacks "; writing stopped"
expect_out_contains "whether writing stopped is unknown"
as_nobody --json
json_check 'd["writers_unknown"] and "could not be checked" in d["writers_unknown"]' "the JSON says it"
