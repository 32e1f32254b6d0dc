# The data workflow's seams (issue 23 item 4): the move command `gpu-triage
# data` prints carries --manifest, and running it moves the files changed
# since the manifest too (a pipeline that skips existing files never redoes
# them otherwise); --move-bad-to leaves a file a live process has open for
# writing where it is (and moves nothing else while it runs: issue 31),
# names it and exits non-zero; lock files and
# zero-byte markers are not samples; the advice is sentences, no numbered
# list of its own.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge"
D="$TMP/hidden"
cp -r "$REAL" "$D"
chmod -R u+w "$D"
: >"$D/.keep"
: >"$D/rows_0-4/.lock"
echo 4242 >"$D/write.lock"
find "$D" -type f -exec touch -d '2 hours ago' {} +
"$TOOL" data "$D" --expect 6 --json >"$TMP/out" || fail "markers and locks made it fail: $(cat "$TMP/out")"
json_check 'd["summary"]["markers"] == 3 and d["summary"]["bad"] == 0' "markers and locks are not samples"

"$TOOL" data "$D" --write-manifest "$TMP/m.xxh" >/dev/null
# Rewritten after the manifest: a valid file, other bytes (as NaN saved
# through a valid writer would be).
cp "$D/rows_0-4/data_1.ckpt" "$D/rows_0-4/data_0.ckpt"
find "$D" -type f -exec touch -d '2 hours ago' {} +
set +e
"$TOOL" data "$D" --expect 6 --manifest "$TMP/m.xxh" --json >"$TMP/out"
set -e
json_check 'd["manifest"]["changed"] == ["'"$D"'/rows_0-4/data_0.ckpt"]' "the rewritten file is changed"
advice=$("$PYTHON" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["how_to_resume"]))' "$TMP/out")
[[ "$advice" == *"--manifest $TMP/m.xxh"* ]] || fail "the move command lacks --manifest: $advice"
[[ ! "$advice" =~ (^|\ )[0-9]\.\  ]] || fail "a numbered list inside the advice: $advice"
cmd=$("$PYTHON" -c 'import re,sys; print(re.search(r"gpu-triage data .*?--move-bad-to DEST", sys.argv[1]).group(0))' "$advice")
cmd="${cmd/gpu-triage/$TOOL}"
cmd="${cmd/DEST/$D.bad}"
set +e
bash -c "$cmd" >"$TMP/moved" 2>&1
set -e
[[ -f "$D.bad/rows_0-4/data_0.ckpt" && ! -e "$D/rows_0-4/data_0.ckpt" ]] || fail "the changed file was not moved by '$cmd': $(cat "$TMP/moved")"

# A writer holds a bad file open: it stays, named, and the exit is non-zero.
head -c 3000 "$REAL/rows_0-4/data_3.ckpt" >"$D/rows_0-4/data_3.ckpt"
"$PYTHON" -c 'import sys,time; f=open(sys.argv[1],"ab"); print("ready", flush=True); time.sleep(60)' \
  "$D/rows_0-4/data_3.ckpt" >"$TMP/writer" &
WRITER=$!
trap 'kill $WRITER 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do grep -q ready "$TMP/writer" && break; sleep 0.1; done
set +e
"$TOOL" data "$D" --expect 6 --deep --move-bad-to "$D.bad2" >"$TMP/out" 2>&1
RC=$?
set -e
kill "$WRITER" 2>/dev/null || true
[[ "$RC" != 0 ]] || fail "moved under a writer with exit 0: $(cat "$TMP/out")"
[[ -f "$D/rows_0-4/data_3.ckpt" && ! -e "$D.bad2/rows_0-4/data_3.ckpt" ]] || fail "a file open for writing was moved"
grep -q -- "--move-bad-to: nothing moved: pid $WRITER (python3) has $D/rows_0-4/data_3.ckpt open for writing" "$TMP/out" ||
  fail "the refusal does not name the file and pid: $(cat "$TMP/out")"
