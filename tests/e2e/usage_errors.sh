# Bad command lines exit 64 with a message; --help and --version exit 0.
source "$(dirname "$0")/common.sh"

check_usage() {
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>&1
  RC=$?
  set -e
  expect_rc 64
}
check_usage --timeout banana
expect_out_contains "invalid duration 'banana'"
check_usage --sample 5s --timeout 2s
expect_out_contains "must be shorter than --timeout"
check_usage --no-such-flag
check_usage --timeout 0
# An empty library name is refused, never read as "the default library".
check_usage cuda --cuda-lib ''
expect_out_contains "needs a library path or name"
for cmd in "" free cuda serve watch; do
  # shellcheck disable=SC2086  # an empty $cmd is the triage
  check_usage $cmd --nvml-lib ''
  expect_out_contains "needs a library path or name"
done
# A bundle is judged by the triage alone: serve and watch would read this
# node (and serve write its record) while seeming to read the bundle.
for cmd in serve watch; do
  check_usage $cmd --bundle "$TMP/b.tar.zst"
  expect_out_contains "--bundle"
done
# --cuda runs CUDA on this machine's GPUs: never on a replay, whose verdict
# it would change (a CRITICAL from the replaying machine's missing libcuda
# before the new-operator trial of issues 48 and 49).
check_usage --bundle "$TMP/b.tar.zst" --cuda
expect_out_contains "--bundle excludes --cuda"
# --data and --python read this machine's folder and interpreter: never
# judged as the recorded node's.
check_usage --bundle "$TMP/b.tar.zst" --data "$TMP"
expect_out_contains "--bundle excludes --data"
check_usage --bundle "$TMP/b.tar.zst" --python /usr/bin/python3
expect_out_contains "--bundle excludes --python"
check_usage free --yes --no-bundle --bundle-dir "$TMP/b"
expect_out_contains "--bundle-dir and --no-bundle contradict each other"
# A bundle's replay reads the tree's kernel log: a FILE would be lost
# between the two, so it is refused; an empty -o is no name.
check_usage bundle --kernel-log "$TMP/kern.log" -o "$TMP/b.tar.zst"
expect_out_contains "--kernel-log FILE is not for bundle"
check_usage bundle -o ''
expect_out_contains "-o: an empty file name"
[[ -z "$(ls "$TMP" | grep gpu-triage-bundle)" ]] || fail "an empty -o wrote a bundle"

# Captured first: `cmd | grep -q` can kill cmd with SIGPIPE under pipefail.
"$TOOL" --version >"$TMP/v"
grep -q "^gpu-triage [0-9]" "$TMP/v" || fail "--version"
"$TOOL" --help >"$TMP/h"
grep -q -- "--sample" "$TMP/h" || fail "--help"

# Numbers at and past their limits end at once with 64 and a clear message,
# in bounded memory: the GPU range used to loop forever (uint32_t i <= b).
check_usage_bounded() {
  set +e
  (
    limit_memory 400000
    timeout 5 "$TOOL" "$@"
  ) >"$TMP/out" 2>&1
  RC=$?
  set -e
  expect_rc 64
}
check_usage_bounded free --gpus 4294967294-4294967295
expect_out_contains "GPU index 4294967295 is out of range (indices are 0-1023)"
check_usage_bounded free --gpus 0-4294967295
expect_out_contains "out of range (indices are 0-1023)"
check_usage_bounded free --gpus 1024
check_usage_bounded free --gpus 99999999999999999999
check_usage_bounded free --gpus "$(printf '0-1023,%.0s' {1..2000})x"
check_usage_bounded free --grace 86401s
expect_out_contains "too large (at most 1 day)"
check_usage_bounded --expect-gpus 4294967296
check_usage_bounded --expect-gpus 1025
check_usage_bounded --expect-gpus 1e30
check_usage_bounded --timeout 1e309
check_usage_bounded --timeout 99999999999999999999999s
expect_out_contains "too large (at most 1 day)"
check_usage_bounded --sample nan
check_usage_bounded --fanout 4294967296
check_usage_bounded serve --scrape-timeout inf
check_usage_bounded serve --listen 127.0.0.1:99999999999999999999
"$TOOL" free --help >"$TMP/h"
grep -q -- "indices 0-1023" "$TMP/h" || fail "free --help states the GPU index limit"

# A GPU the node does not have is a usage error too (64, not a refusal's 2),
# naming the GPUs it has; nothing on stdout, and with --json the error
# object (docs/json.md).
run after-crash free --gpus 9 --sample 0
expect_rc 64
grep -qx "gpu-triage free: --gpus 9: this node has no GPU 9 (it has GPUs 0-7)" "$TMP/err" ||
  fail "message: $(cat "$TMP/err")"
[[ ! -s "$TMP/out" ]] || fail "stdout: $(cat "$TMP/out")"
run after-crash free --gpus 6-9 --sample 0 --json --yes
expect_rc 64
grep -qx "gpu-triage free: --gpus 6-9: this node has no GPUs 8-9 (it has GPUs 0-7)" "$TMP/err" ||
  fail "message: $(cat "$TMP/err")"
json_check 'd == {"error": "--gpus 6-9: this node has no GPUs 8-9 (it has GPUs 0-7)", "exit_code": 64}'
