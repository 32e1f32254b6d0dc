# A bundle's replay takes the node's disk figures and host name from its
# recorded report (issue 48 item 2), never statvfs of this machine's
# TMPDIR nor this machine's name: a node recorded with a full disk replays
# with its critical; a node recorded without a hostname file in its tree
# (`bundle --root /` names it with gethostname()) replays with its name.
source "$(dirname "$0")/common.sh"

unpacked_story_bundle
"$PYTHON" - "$TMP/x" <<'PY'
import hashlib, json, os, sys
x = sys.argv[1]
r = json.load(open(f"{x}/report.json"))
root = [d for d in r["disks"] if d["path"] == "/"][0]
root["total_bytes"] = 1000 * 1024**3
root["available_bytes"] = 2 * 1024**3  # 0.2% free: critical
r["hostname"] = "node-as-recorded"
open(f"{x}/report.json", "w").write(json.dumps(r))
gone = []
for f in ("root/etc/hostname", "root/proc/sys/kernel/hostname"):
    if os.path.exists(f"{x}/{f}"):
        os.remove(f"{x}/{f}")
        gone.append(f)
# The manifest says what the bundle holds now: only the replay is tested.
m = json.load(open(f"{x}/manifest.json"))
m["members"] = [b for b in m["members"] if b["name"] not in gone]
for b in m["members"]:
    if b["name"] == "report.json":
        data = open(f"{x}/report.json", "rb").read()
        b["size_bytes"], b["sha256"] = len(data), hashlib.sha256(data).hexdigest()
open(f"{x}/manifest.json", "w").write(json.dumps(m))
PY
tar -C "$TMP/x" --zstd -cf "$TMP/full.tar.zst" $members

replay "$TMP/full.tar.zst" --json
json_check 'd["hostname"] == "node-as-recorded"' "the recorded host name"
json_check '[f["severity"] for f in d["findings"] if f["id"] == "disk.low_space" and f["subject"]["path"] == "/"] == ["critical"]' "the recorded full disk"
json_check '[x["available_bytes"] for x in d["disks"] if x["path"] == "/"] == [2 * 1024**3]'

# A path asked for now that the node's record lacks is unread, not ours.
replay "$TMP/full.tar.zst" --path /scratch --json
json_check '[x["error"] is not None and x["total_bytes"] is None for x in d["disks"] if x["path"] == "/scratch"] == [True]'

# A node bundled without its kernel log (--no-kernel-log) has none in its
# record: the replay judges what was recorded, not the log as unreadable.
run two-vllm-tp4 bundle -o "$TMP/nolog.tar.zst" --no-state --timeout 2s --sample 0 --no-kernel-log
expect_rc 0
replay "$TMP/nolog.tar.zst" --json
json_check 'd["replay"]["recorded_verdict"] == d["replay"]["replayed_verdict"] == d["verdict"]' "the same verdict as recorded"
json_check 'not any(f["id"].startswith("kernel_log.") for f in d["findings"])' "no kernel-log finding"
json_check 'd["replay"]["differences"] == []'

# This machine, bundled with --root /, replays under its own name.
no_node bundle --root / -o "$TMP/live.tar.zst" --no-state --timeout 2s
[[ -f "$TMP/live.tar.zst" ]] || fail "bundle --root / wrote nothing: $(cat "$TMP/err")"
replay "$TMP/live.tar.zst" --json
json_check "d['hostname'] == '$(hostname)'" "bundle --root / replays with its host name"
exit 0
