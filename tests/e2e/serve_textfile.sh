# --textfile DIR: the metrics for node_exporter's textfile collector,
# written atomically, without timestamps; the normal output is unchanged.
source "$(dirname "$0")/common.sh"
mkdir -p "$TMP/textfile"

run after-crash --oneline --sample 0 --textfile "$TMP/textfile"
expect_rc 1
expect_out_contains "WARNING gpus=8/8"
[[ -f "$TMP/textfile/gpu-triage.prom" ]] || fail "no gpu-triage.prom"
[[ $(ls -A "$TMP/textfile") == gpu-triage.prom ]] || fail "left files behind: $(ls -A "$TMP/textfile")"
[[ $(stat -c %a "$TMP/textfile/gpu-triage.prom") == 644 ]] || fail "mode"
prom="$TMP/textfile/gpu-triage.prom"
grep -q '^gpu_triage_verdict{Hostname="llm-rtxpro-03",verdict="warning"} 1$' "$prom" || fail "verdict"
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

# An unwritable directory: the report still prints, the error is named, exit 3.
run after-crash --oneline --sample 0 --textfile "$TMP/does-not-exist"
expect_rc 3
expect_out_contains "WARNING gpus=8/8"
grep -q -- "--textfile: cannot create $TMP/does-not-exist/.gpu-triage.prom" "$TMP/err" || fail "error: $(cat "$TMP/err")"
run after-crash --oneline --sample 0 --exit-codes npd --textfile "$TMP/does-not-exist"
expect_rc 2
