# Node Problem Detector: contrib/npd's plugin monitor passes NPD's start-up
# validation rules, broken variants do not, and the rule's command keeps the
# plugin contract on every scenario: stdout at most max_output_length bytes
# (80) after trimming, exit 0/1/2 only, well inside NPD's default 5 s.
source "$(dirname "$0")/common.sh"
CONFIG="$GT_SOURCE_DIR/contrib/npd/gpu-triage-monitor.json"
CHECK="$GT_SOURCE_DIR/contrib/npd/check-config.py"

"$PYTHON" "$CHECK" "$CONFIG" --path-map "/usr/bin/gpu-triage=$TOOL" --print-rules >"$TMP/rules" ||
  fail "the shipped config does not validate"

# Each rule that breaks one of NPD's checks is refused.
broken() {
  "$PYTHON" - "$CONFIG" "$TMP/broken.json" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"))
PY
  if "$PYTHON" "$CHECK" "$TMP/broken.json" --path-map "/usr/bin/gpu-triage=$TOOL" 2>"$TMP/why"; then
    fail "accepted a config where: $1"
  fi
  grep -q "$2" "$TMP/why" || fail "wrong reason for '$1': $(cat "$TMP/why")"
}
broken 'c["plugin"] = "filelog"' 'only supports "custom"'
broken 'c["rules"][0]["timeout"] = "11s"' 'greater than global timeout'
broken 'c["rules"][0]["condition"] = "GPUTrouble"' 'does not have preset condition'
broken 'c["rules"][0]["type"] = "sometimes"' 'is not "temporary" or "permanent"'
broken 'c["rules"][0]["path"] = "/nonexistent/gpu-triage"' 'does not exist'
broken 'c["pluginConfig"]["timeout"] = "5 seconds"' 'not a positive duration'
broken 'c["pluginConfig"]["max_ouput_length"] = 80' "unknown key 'max_ouput_length'"
broken 'del c["pluginConfig"]["timeout"]; c["rules"][0]["timeout"] = "10s"' 'greater than global timeout'

# The rule's own command line, on every scenario.
IFS=$'\t' read -r -a rule <"$TMP/rules"
rule_timeout="${rule[0]}" max_len="${rule[1]}" args=("${rule[@]:3}")
[[ "${args[*]}" == *"--exit-codes npd"* && "${args[*]}" == *"--oneline"* ]] || fail "args: ${args[*]}"
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" "${args[@]}"
  msg=$("$PYTHON" -c 'import sys; print(len(open(sys.argv[1],"rb").read().strip()))' "$TMP/out")
  [[ "$RC" == 0 || "$RC" == 1 || "$RC" == 2 ]] || fail "$s: exit $RC, NPD knows 0/1/2"
  ((msg <= max_len)) || fail "$s: stdout is $msg bytes, NPD keeps $max_len: $(cat "$TMP/out")"
  ((msg > 0)) || fail "$s: empty message"
  ((WALL_MS < 5000)) || fail "$s: took $WALL_MS ms, NPD's default timeout is 5 s"
  echo "$s: rc=$RC ${WALL_MS}ms $(cat "$TMP/out")"
done
run cuda-compat-older "${args[@]}"
expect_rc 1
[[ "$(cat "$TMP/out")" == "CRITICAL gpus=8/8 critical=1 warning=0 ids=cuda.driver_mismatch" ]] ||
  fail "cuda-compat-older: $(cat "$TMP/out")"
run healthy-h100x8 "${args[@]}"
expect_rc 0
