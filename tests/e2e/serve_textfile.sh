# --textfile DIR: the metrics for node_exporter's textfile collector,
# written atomically, without timestamps; the normal output is unchanged.
source "$(dirname "$0")/common.sh"
mkdir -p "$TMP/textfile"

run cuda-compat-older --oneline --sample 0 --textfile "$TMP/textfile"
expect_rc 2  # critical: CUDA cannot start with the older compat libcuda (803)
expect_out_contains "CRITICAL gpus=8/8"
[[ -f "$TMP/textfile/gpu-triage.prom" ]] || fail "no gpu-triage.prom"
[[ $(ls -A "$TMP/textfile") == gpu-triage.prom ]] || fail "left files behind: $(ls -A "$TMP/textfile")"
[[ $(stat -c %a "$TMP/textfile/gpu-triage.prom") == 644 ]] || fail "mode"
prom="$TMP/textfile/gpu-triage.prom"
grep -q '^gpu_triage_verdict{Hostname="gpu-node-01",verdict="critical"} 1$' "$prom" || fail "verdict"
grep -q '^gpu_triage_gpu_memory_used_bytes{gpu="0",UUID="GPU-' "$prom" || fail "per-GPU series"
if grep -q 'gpu_triage_report_age_seconds\|gpu_triage_collections_total' "$prom"; then
  fail "serve's own metrics in a textfile"
fi
if grep -Eq '^[a-z_]+(\{[^}]*\})? [^ ]+ [0-9]+$' "$prom"; then fail "a sample has a timestamp"; fi
if command -v promtool >/dev/null; then
  sed 's/modelName=/model_name=/' "$prom" | promtool check metrics || fail "promtool"
fi

# Rewritten in place by the next run (rename over the old file).
ino1=$(stat -c %i "$prom")
run healthy-h100x8 --oneline --sample 0 --textfile "$TMP/textfile"
expect_rc 0
grep -q 'verdict="ok"} 1$' "$prom" || fail "second run's verdict"
[[ $(stat -c %i "$prom") != "$ino1" ]] || fail "not replaced by rename"

# A directory that cannot be written: exit 74 (not a verdict: the node was
# checked), the error last on stderr naming the file, and nothing that reads
# as success: --oneline prints no line; the table and JSON still print the
# report, with the error in its notes/warnings.
run healthy-h100x8 --oneline --sample 0 --textfile "$TMP/does-not-exist"
expect_rc 74
[[ ! -s "$TMP/out" ]] || fail "--oneline printed '$(cat "$TMP/out")' although the textfile failed"
[[ "$(tail -1 "$TMP/err")" == "gpu-triage: --textfile: cannot write $TMP/does-not-exist/gpu-triage.prom: cannot create a temporary file in $TMP/does-not-exist: No such file or directory" ]] ||
  fail "error: $(cat "$TMP/err")"
run healthy-h100x8 --oneline --sample 0 --exit-codes npd --textfile "$TMP/does-not-exist"
expect_rc 74
[[ ! -s "$TMP/out" ]] || fail "--oneline (npd) printed '$(cat "$TMP/out")'"
: >"$TMP/a-file"
run after-crash --oneline --sample 0 --textfile "$TMP/a-file"
expect_rc 74
[[ ! -s "$TMP/out" ]] || fail "--oneline printed '$(cat "$TMP/out")'"
grep -q -- "--textfile: cannot write $TMP/a-file/gpu-triage.prom: .*: Not a directory$" "$TMP/err" ||
  fail "error: $(cat "$TMP/err")"
run healthy-h100x8 --sample 0 --textfile "$TMP/does-not-exist"
expect_rc 74
expect_out_contains "(exit 74)"
expect_out_contains "--textfile: cannot write"  # in the notes
tail -1 "$TMP/err" | grep -q -- "^gpu-triage: --textfile: cannot write" || fail "error: $(cat "$TMP/err")"
run healthy-h100x8 --sample 0 --json --textfile "$TMP/does-not-exist"
expect_rc 74
json_check 'd["exit_code"] == 74 and any("--textfile: cannot write" in w for w in d["warnings"])'
