# The move command `gpu-triage data` gives in its advice ("First move the
# bad and changed files out of DIR: gpu-triage data DIR ... --move-bad-to
# DEST") quotes DIR and DEST as the plan's steps do: pasted into a shell,
# a folder named "my data;$(touch PWNED)" is one word, moves the bad
# files and runs nothing else. Before the new-operator trial of issues 48
# and 49 both were printed as they are.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge"
D="$TMP/my data;\$(touch PWNED)"
cp -r "$REAL" "$D"
chmod -R u+w "$D"
head -c 3000 "$REAL/rows_0-4/data_3.ckpt" >"$D/rows_0-4/data_3.ckpt"
find "$D" -type f -exec touch -d '2 hours ago' {} +
cd "$TMP"

run_data "$D" --expect 6 --json
expect_rc 1
advice=$("$PYTHON" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["how_to_resume"]))' "$TMP/out")
cmd=$("$PYTHON" -c 'import re,sys; print(re.search(r"gpu-triage data .*?--move-bad-to DEST", sys.argv[1]).group(0))' "$advice")
cmd="${cmd/gpu-triage/$TOOL}"
cmd="${cmd/DEST/\"\$DEST\"}"
set +e
DEST="$TMP/bad" bash -c "$cmd" >"$TMP/moved" 2>&1
set -e
[[ ! -e "$TMP/PWNED" ]] || fail "the pasted command ran what the folder's name holds: $cmd"
[[ -f "$TMP/bad/rows_0-4/data_3.ckpt" && ! -e "$D/rows_0-4/data_3.ckpt" ]] ||
  fail "the bad file was not moved by '$cmd': $(cat "$TMP/moved")"

exit 0
