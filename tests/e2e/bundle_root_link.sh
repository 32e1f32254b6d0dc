# A bundle whose members are links leading out of its tree (issue 48 item
# 1): `root` a link to "/" (the replaying machine), or a link beside it.
# --bundle refuses it (UNKNOWN, exit 3, one line naming the member), never
# reads this machine as the node's tree; fleet --reports calls the host
# UNKNOWN with the same words. A link inside root/ stays a link of the tree
# (its absolute target starts again at root/), never this machine's file.
source "$(dirname "$0")/common.sh"

unpacked_story_bundle

# root -> / : this machine's tree under the node's name.
mv "$TMP/x/root" "$TMP/root.real"
ln -s / "$TMP/x/root"
tar -C "$TMP/x" --zstd -cf "$TMP/rootlink.tar.zst" $members
rm "$TMP/x/root"
mv "$TMP/root.real" "$TMP/x/root"
# A link beside root/ (report.txt -> /etc/passwd).
mv "$TMP/x/report.txt" "$TMP/report.txt"
ln -s /etc/passwd "$TMP/x/report.txt"
tar -C "$TMP/x" --zstd -cf "$TMP/sidelink.tar.zst" $members
rm "$TMP/x/report.txt"
mv "$TMP/report.txt" "$TMP/x/report.txt"
# Links inside root/ to this machine's folders: the tree's own, not ours.
rm -rf "$TMP/x/root/etc"
ln -s /etc "$TMP/x/root/etc"
ln -s ../../../../../../../../../../ "$TMP/x/root/up"
tar -C "$TMP/x" --zstd -cf "$TMP/innerlink.tar.zst" $members

export TMPDIR="$TMP/scratch"
mkdir -p "$TMPDIR"
for f in rootlink sidelink; do
  replay "$TMP/$f.tar.zst"
  expect_rc 3
  grep -qF "not a readable bundle: $TMP/$f.tar.zst: " "$TMP/err" || fail "$f: stderr: $(cat "$TMP/err")"
  grep -qF "is a link" "$TMP/err" || fail "$f: the link is not named: $(cat "$TMP/err")"
  expect_out_contains "UNKNOWN"
  expect_out_lacks "nothing of this machine read"
  [[ -z "$(ls -A "$TMPDIR")" ]] || fail "$f: left $(ls -A "$TMPDIR")"
done
replay "$TMP/rootlink.tar.zst"
grep -qF "member root is a link to /" "$TMP/err" || fail "root's link not said: $(cat "$TMP/err")"

# The links inside root/ resolve in the tree: this machine's /etc/fstab
# and hostname are never the node's.
replay "$TMP/innerlink.tar.zst" --json
"$PYTHON" - "$TMP/out" <<'PY' || fail "inner links read this machine: $(head -c 2000 "$TMP/out")"
import json, socket, sys
d = json.load(open(sys.argv[1]))
assert d["hostname"] == "llm-rtxpro-03", d["hostname"]
assert d["hostname"] != socket.gethostname()
PY

# fleet --reports: the host is UNKNOWN, named by its file, saying why.
mkdir "$TMP/r"
cp "$TMP/rootlink.tar.zst" "$TMP/r/"
no_node fleet --reports "$TMP/r" --json
expect_rc 3
json_check 'len(d["hosts"]) == 1 and d["hosts"][0]["verdict"] == "UNKNOWN" and d["hosts"][0]["host"] == "rootlink"'
json_check '"member root is a link to /" in d["hosts"][0]["error"]'
[[ -z "$(ls -A "$TMPDIR")" ]] || fail "fleet left $(ls -A "$TMPDIR")"
exit 0
