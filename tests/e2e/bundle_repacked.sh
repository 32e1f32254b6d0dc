# A bundle an operator extracted and packed again (`tar -C DIR -cf FILE .`:
# every member named "./NAME") is the same bundle: the replay reads it,
# every member verified against the manifest, the recorded verdict kept,
# in --bundle and in fleet --reports alike (scripts/bundle-to-scenario
# already read it so). A member named twice is refused with those words,
# not as a scratch path that "exists". Both failed before the new-operator
# trial of issues 48 and 49 ("no report.json: not a gpu-triage bundle";
# "cannot write /tmp/gpu-triage-bundle.X/report.json: File exists").
source "$(dirname "$0")/common.sh"

unpacked_story_bundle
tar -C "$TMP/x" --zstd -cf "$TMP/repacked.tar.zst" .
tar -tf "$TMP/repacked.tar.zst" >"$TMP/names"
grep -qx './report.json' "$TMP/names" || fail "tar did not name ./report.json"

replay "$TMP/repacked.tar.zst" --json
expect_rc 1
json_check 'd["replay"]["members_unverified"] == [] and d["replay"]["differences"] == []'
json_check 'd["replay"]["recorded_verdict"] == d["replay"]["replayed_verdict"] == "WARNING"'
json_check 'd["hostname"] == "llm-rtxpro-03"'

mkdir "$TMP/r"
cp "$TMP/repacked.tar.zst" "$TMP/r/"
no_node fleet --reports "$TMP/r" --json
expect_rc 1
json_check 'len(d["hosts"]) == 1 and d["hosts"][0]["host"] == "llm-rtxpro-03" and d["hosts"][0]["verdict"] == "WARNING"'

# report.json twice: the second is appended, as `tar -r` does.
tar -C "$TMP/x" -cf "$TMP/twice.tar" $members
tar -C "$TMP/x" -rf "$TMP/twice.tar" report.json
zstd -q --rm "$TMP/twice.tar" -o "$TMP/twice.tar.zst"
export TMPDIR="$TMP/scratch"
mkdir -p "$TMPDIR"
replay "$TMP/twice.tar.zst"
expect_rc 3
grep -qF "not a readable bundle: $TMP/twice.tar.zst: member report.json appears twice in the archive" "$TMP/err" ||
  fail "the twice-named member is not said: $(cat "$TMP/err")"
[[ -z "$(ls -A "$TMPDIR")" ]] || fail "left $(ls -A "$TMPDIR")"
exit 0
