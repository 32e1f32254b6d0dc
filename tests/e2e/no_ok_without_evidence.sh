# No OK without evidence (issue 31 item 3): an input that could not be read
# is never reported clean. A compressed --kernel-log is inflated (or refused
# with the reason); a file that is no kernel log is "not read"; an empty
# capture or report folder is UNKNOWN (exit 3); a sample folder that cannot
# be listed is "unreadable", never "missing" or "to redo"; a --manifest or
# --state-dir that is not there is a usage error (64).
source "$(dirname "$0")/common.sh"

tool() {
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

# A compressed kernel log holding an Xid 79 (a real journal excerpt: long
# enough that each format really compresses it), by magic bytes, whatever
# its name.
cp "$GT_SOURCE_DIR/tests/fixtures/real/kernel-log/issue-ogkm1151-rtx5080-xid79-journal-595.71.05.log" "$TMP/xid.log"
gzip -c "$TMP/xid.log" >"$TMP/xid.log.gz"
xz -c "$TMP/xid.log" >"$TMP/xid.log.xz"
cp "$TMP/xid.log.gz" "$TMP/saved-dmesg.txt" # gzip under a plain name
have_zstd=0
if command -v zstd >/dev/null; then
  zstd -q -c "$TMP/xid.log" >"$TMP/xid.log.zst"
  have_zstd=1
fi
for f in xid.log xid.log.gz xid.log.xz saved-dmesg.txt $([[ $have_zstd == 1 ]] && echo xid.log.zst); do
  run healthy-h100x8 --kernel-log "$TMP/$f" --json --sample 0
  expect_rc 2
  json_check 'any(f["id"] == "gpu.fallen_off_bus_logged" or f["id"] == "gpu.xid.79" for f in d["findings"])' "$f: the Xid 79 is read"
done
# Cut short: refused with the format named, not clean.
head -c 20 "$TMP/xid.log.gz" >"$TMP/cut.gz"
run healthy-h100x8 --kernel-log "$TMP/cut.gz" --json --sample 0
expect_rc 1
json_check 'd["kernel_log"]["sources"][0]["read"] is False and "gzip" in d["kernel_log"]["sources"][0]["error"]' "a cut-short gzip is refused"
json_check 'any(f["id"] == "kernel_log.unreadable" and f["severity"] == "warning" for f in d["findings"])'

# No line of a kernel log's form: not read, a warning, never clean.
printf 'milk\neggs\n2 apples\n' >"$TMP/shopping.txt"
"$PYTHON" -c 'import random, sys; r = random.Random(31); sys.stdout.buffer.write(bytes(r.choice(range(0x29, 0xfd)) for _ in range(4096)))' >"$TMP/random.bin"
for f in shopping.txt random.bin; do
  run healthy-h100x8 --kernel-log "$TMP/$f" --json --sample 0
  expect_rc 1
  json_check '"not a kernel log" in d["kernel_log"]["sources"][0]["error"]' "$f: said to be no kernel log"
  json_check 'any(f["id"] == "kernel_log.unreadable" for f in d["findings"])' "$f: a finding"
  # The title names the file and the advice is not "pass --kernel-log FILE",
  # which the operator just did (the trial's finding).
  json_check 'any(f["id"] == "kernel_log.unreadable" and f["title"].endswith("'"$f"' is not a kernel log: Xid errors are unknown") and "--kernel-log FILE" not in f["action"] and "kernel log instead" in f["action"] for f in d["findings"])' "$f: named, with advice to pass the node's own log"
done

# An empty folder of captures or reports checks no host: UNKNOWN, exit 3.
mkdir -p "$TMP/empty"
for src in --smi-xml --reports; do
  tool fleet "$src" "$TMP/empty"
  [[ $RC == 3 ]] || fail "fleet $src EMPTYDIR: exit $RC, want 3: $(cat "$TMP/out" "$TMP/err")"
  grep -q "UNKNOWN" "$TMP/out" || fail "fleet $src EMPTYDIR: no UNKNOWN: $(cat "$TMP/out")"
  grep -q "no files in the folder" "$TMP/out" || fail "fleet $src EMPTYDIR: no reason: $(cat "$TMP/out")"
done

# A --manifest or --state-dir that is not there: usage errors.
mkdir -p "$TMP/corpus"
tool data "$TMP/corpus" --manifest /nonexistent/MANIFEST
[[ $RC == 64 ]] || fail "data --manifest /nonexistent: exit $RC, want 64"
grep -q -- "--manifest /nonexistent/MANIFEST: No such file or directory" "$TMP/err" ||
  fail "data --manifest: no clear message: $(cat "$TMP/err")"
[[ ! -s "$TMP/out" ]] || fail "data --manifest /nonexistent printed a report: $(cat "$TMP/out")"
tool history --state-dir /nonexistent/x
[[ $RC == 64 ]] || fail "history --state-dir /nonexistent/x: exit $RC, want 64: $(cat "$TMP/out")"
grep -q -- "--state-dir /nonexistent/x: No such file or directory" "$TMP/err" ||
  fail "history --state-dir: no clear message: $(cat "$TMP/err")"

# A sample folder the user cannot list (mode 700, another user's): its
# samples are unknown, not missing; nothing is "to redo".
real="$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge"
mapfile -t sources < <(cd "$real" && find . -name 'data_*.ckpt' | sort -V)
job="$TMP/job"
for i in $(seq 0 7); do
  g=$((i / 4 * 4))
  mkdir -p "$job/rows_$g-$((g + 4))"
  cp "$real/${sources[$((i % ${#sources[@]}))]}" "$job/rows_$g-$((g + 4))/data_$i.ckpt"
done
chmod -R a+rX "$job"
chmod 755 "$TMP"
chmod 700 "$job/rows_4-8"
as_other=()
if [[ "$(id -u)" == 0 ]]; then
  command -v setpriv >/dev/null || fail "setpriv is needed to run as another user (util-linux)"
  as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
chmod 000 "$job/rows_4-8"
set +e
"${as_other[@]}" "$TOOL" data "$job" --expect 8 >"$TMP/out" 2>"$TMP/err"
RC=$?
"${as_other[@]}" "$TOOL" data "$job" --expect 8 --json >"$TMP/data.json" 2>/dev/null
"${as_other[@]}" "$TOOL" data "$job" --expect 8 --resume-list "$TMP/redo.txt" >/dev/null 2>"$TMP/rl.err"
RL_RC=$?
set -e
chmod 755 "$job/rows_4-8"
expect_rc 2
expect_out_contains "missing unknown (1 folder unreadable)"
expect_out_contains "Permission denied"
expect_out_lacks "4 missing"
expect_out_lacks "not started"
expect_out_lacks "redoes"
cp "$TMP/data.json" "$TMP/out"
json_check 'd["summary"]["missing"] is None and d["missing"] == [] and d["resume"] == []'
json_check 'len(d["unreadable_dirs"]) == 1 and d["unreadable_dirs"][0].endswith("/rows_4-8")'
[[ $RL_RC == 2 && ! -e "$TMP/redo.txt" ]] || fail "--resume-list written although a folder is unreadable (exit $RL_RC)"
grep -q "what to redo is unknown" "$TMP/rl.err" || fail "--resume-list refusal unclear: $(cat "$TMP/rl.err")"
