# gpu-triage --bundle FILE on what is not a readable bundle: cut off, a tar
# with no report.json, a report.json that is not a report, no such file.
# Each is UNKNOWN (exit 3) with one line naming the file and why; nothing of
# this machine is judged in its place and nothing is left in the temp folder.
source "$(dirname "$0")/common.sh"

run story bundle -o "$TMP/b.tar.zst" --no-state --timeout 2s
expect_rc 0
head -c 3000 "$TMP/b.tar.zst" >"$TMP/cut.tar.zst"
mkdir -p "$TMP/t/root/etc" && echo x >"$TMP/t/root/etc/hostname"
tar -C "$TMP/t" -czf "$TMP/noreport.tar.gz" root
echo '{"schema": "something else"}' >"$TMP/t/report.json"
tar -C "$TMP/t" -czf "$TMP/badreport.tar.gz" report.json root

export TMPDIR="$TMP/scratch"
mkdir -p "$TMPDIR"
for f in cut.tar.zst noreport.tar.gz badreport.tar.gz missing.tar.zst; do
  replay "$TMP/$f"
  expect_rc 3
  grep -qF "not a readable bundle: $TMP/$f: " "$TMP/err" || fail "$f: stderr: $(cat "$TMP/err")"
  expect_out_contains "UNKNOWN"
  [[ -z "$(ls -A "$TMPDIR")" ]] || fail "$f: left $(ls -A "$TMPDIR")"
done
replay "$TMP/noreport.tar.gz"
grep -qF "no report.json" "$TMP/err" || fail "no report.json not said: $(cat "$TMP/err")"
exit 0
