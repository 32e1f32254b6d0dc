# A bundle's replay checks what it replays against the bundle's own record
# (issue 48 item 3): each member against manifest.json's size and sha256 (a
# difference is the finding bundle.unverified: never a clean replay), and
# the replayed verdict and findings against report.json's (any difference
# is one line in the text and JSON's "replay"). The reproducer: a bundle
# whose fstab lost its /data line replays with one finding fewer (the
# missing-mount node: /data in fstab, not mounted).
source "$(dirname "$0")/common.sh"

unpacked_story_bundle missing-mount

# As written: every member verified, the same verdict and findings.
replay "$TMP/b.tar.zst" --json
json_check 'd["replay"]["members_unverified"] == [] and d["replay"]["differences"] == []'
json_check 'd["replay"]["recorded_verdict"] == d["replay"]["replayed_verdict"] == d["verdict"]'
json_check 'not any(f["id"] == "bundle.unverified" for f in d["findings"])'
json_check '"mount.missing warning /data" in d["replay"]["recorded_findings"]'

grep -v " /data " "$TMP/x/root/etc/fstab" >"$TMP/fstab" && cat "$TMP/fstab" >"$TMP/x/root/etc/fstab"
tar -C "$TMP/x" --zstd -cf "$TMP/edited.tar.zst" $members

# The fstab edited, the manifest not: the member is named, the finding is
# there, and the lost warning is said.
replay "$TMP/edited.tar.zst" --json
json_check 'any(u.startswith("root/etc/fstab: ") for u in d["replay"]["members_unverified"])' "the edited member is named"
json_check '[f["severity"] for f in d["findings"] if f["id"] == "bundle.unverified"] == ["warning"]'
json_check '"recorded only: mount.missing warning /data" in d["replay"]["differences"]'
json_check 'any(w.startswith("the replay differs from the bundle'"'"'s recorded report: recorded WARNING, replayed ") for w in d["warnings"])'
replay "$TMP/edited.tar.zst" --wide
expect_out_contains "the replay differs from the bundle's recorded report"
expect_out_contains "recorded only: mount.missing warning /data"
expect_out_contains "bundle.unverified"

# The manifest made to agree: members verified, the lost warning still said.
"$PYTHON" - "$TMP/x" <<'PY'
import hashlib, json, sys
x = sys.argv[1]
m = json.load(open(f"{x}/manifest.json"))
for b in m["members"]:
    data = open(f"{x}/{b['name']}", "rb").read()
    b["size_bytes"], b["sha256"] = len(data), hashlib.sha256(data).hexdigest()
open(f"{x}/manifest.json", "w").write(json.dumps(m))
PY
tar -C "$TMP/x" --zstd -cf "$TMP/agreed.tar.zst" $members
replay "$TMP/agreed.tar.zst" --json
json_check 'd["replay"]["members_unverified"] == []'
json_check '"recorded only: mount.missing warning /data" in d["replay"]["differences"]'

# A member that is no file (a FIFO, a device, a hard link) is never
# extracted, and never silently: each is named, so the replay is not clean.
"$PYTHON" - "$TMP/x" "$TMP/other.tar" $members <<'PY'
import io, sys, tarfile
x, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with tarfile.open(out, "w") as t:
    for n in names:
        t.add(f"{x}/{n}", arcname=n)
    fifo = tarfile.TarInfo("root/etc/pipe"); fifo.type = tarfile.FIFOTYPE
    t.addfile(fifo)
    dev = tarfile.TarInfo("root/dev/sda9"); dev.type = tarfile.BLKTYPE
    t.addfile(dev)
    hard = tarfile.TarInfo("root/etc/fstab2"); hard.type = tarfile.LNKTYPE
    hard.linkname = "root/etc/fstab"
    t.addfile(hard)
PY
replay "$TMP/other.tar" --json
json_check '"root/etc/pipe: a device, FIFO or socket in the archive, not extracted" in d["replay"]["members_unverified"]' "a FIFO is named"
json_check '"root/dev/sda9: a device, FIFO or socket in the archive, not extracted" in d["replay"]["members_unverified"]' "a device is named"
json_check '"root/etc/fstab2: a hard link to root/etc/fstab in the archive, not extracted" in d["replay"]["members_unverified"]' "a hard link is named"
json_check 'any(f["id"] == "bundle.unverified" for f in d["findings"])'

# No manifest at all: nothing could be checked, so not clean.
rm "$TMP/x/manifest.json"
tar -C "$TMP/x" --zstd -cf "$TMP/nomanifest.tar.zst" $(cd "$TMP/x" && ls -A)
replay "$TMP/nomanifest.tar.zst" --json
json_check 'd["replay"]["members_unverified"] == ["no manifest.json: no member could be checked"]'
json_check 'any(f["id"] == "bundle.unverified" for f in d["findings"])'

# fleet --reports counts the edited bundle with the same words.
mkdir "$TMP/r"
cp "$TMP/edited.tar.zst" "$TMP/r/"
no_node fleet --reports "$TMP/r" --json
json_check 'any(f["id"] == "bundle.unverified" for f in d["hosts"][0]["report"]["findings"])'
json_check '"recorded only: mount.missing warning /data" in d["hosts"][0]["report"]["replay"]["differences"]'
exit 0
