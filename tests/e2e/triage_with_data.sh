# One command after a crash (issue 14): `gpu-triage --data DIR` checks the
# job's output inside the triage. On the after-crash scenario (an idle
# SGLang server auto-started on every GPU) with a damaged copy of a real
# SpecForge corpus, one report holds both; its plan stops the server first,
# then resumes the data with the exact command that moves the bad files away,
# and that command does what the step says.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch"
D="$TMP/hidden"
cp -r "$REAL/specforge" "$D"
chmod -R u+w "$D"
head -c 3000 "$REAL/specforge/rows_0-4/data_3.ckpt" > "$D/rows_0-4/data_3.ckpt"  # truncated
rm "$D/rows_0-4/data_2.ckpt"                                                    # a gap
# Written before the crash (files written in the last 2 minutes may belong to
# a job still running: no move command is offered for them, checked below).
find "$D" -type f -exec touch -d '2 hours ago' {} +
before=$(cd "$D" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)

run after-crash --data "$D" --expect 40 --json --sample 600ms
expect_rc 1
json_check '[f["id"] for f in d["findings"] if f["id"].startswith("data.")] == ["data.bad", "data.missing", "data.not_started"]' "bad, gap, not started"
json_check 'd["data"]["bad"] == [{"path": "'"$D"'/rows_0-4/data_3.ckpt", "problem": "truncated"}]'
json_check 'd["data"]["gap_count"] == 1 and d["data"]["gaps"] == "2" and d["data"]["not_started_range"] == {"first": 6, "last": 39}'
json_check '[s["finding_ids"] for s in d["plan"]][:2] == [["memory.held_idle"], ["data.bad", "data.missing"]]' "stop the server, then the data: one step"
json_check 'd["plan"][1]["commands"] == ["gpu-triage data '"$D"' --expect 40 --deep --move-bad-to '"$D"'.bad"]' "the exact move command"
json_check '"prepare_hidden_states.py" in d["plan"][1]["text"]' "how SpecForge resumes"
after=$(cd "$D" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)
[[ "$before" == "$after" ]] || fail "--data modified the data directory"

# The step's command moves exactly the bad file; then --data finds none.
set +e
"$TOOL" data "$D" --expect 40 --deep --move-bad-to "$D.bad" >"$TMP/out" 2>"$TMP/err"
set -e
[[ -f "$D.bad/rows_0-4/data_3.ckpt" && ! -e "$D/rows_0-4/data_3.ckpt" ]] || fail "the bad file was not moved: $(cat "$TMP/err")"
run after-crash --data "$D" --expect 40 --json --sample 0
json_check 'not any(f["id"] == "data.bad" for f in d["findings"])' "nothing bad left"
json_check 'd["data"]["gap_count"] == 2' "the moved file is now a gap the pipeline redoes"

# A file written just now may be the running job's: no move command.
head -c 3000 "$REAL/specforge/rows_4-8/data_5.ckpt" > "$D/rows_4-8/data_5.ckpt"
run after-crash --data "$D" --expect 40 --json --sample 0
json_check 'd["data"]["move_command"] is None and "last 2 minutes" in d["data"]["move_withheld"]' "withheld while the job may run"
json_check '[f["commands"] for f in d["findings"] if f["id"] == "data.bad"] == [[]]'

# A directory name with a space is quoted in the command.
touch -d '2 hours ago' "$D/rows_4-8/data_5.ckpt"
mv "$D" "$TMP/my data"
run after-crash --data "$TMP/my data" --expect 40 --json --sample 0
json_check 'd["data"]["move_command"] == "gpu-triage data '"'$TMP/my data'"' --expect 40 --deep --move-bad-to '"'$TMP/my data.bad'"'"' "quoted"

# --expect and --deep belong to --data; --data is this machine's.
run after-crash --expect 40
expect_rc 64
run after-crash --data "$D" --smi-xml /dev/null
expect_rc 64

# An unreadable directory is a finding, never a crash.
run after-crash --data "$TMP/nope" --json --sample 0
json_check '[f["id"] for f in d["findings"] if f["id"].startswith("data.")] == ["data.unreadable"]'
