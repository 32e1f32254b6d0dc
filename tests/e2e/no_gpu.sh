# No NVIDIA GPU at all (nothing on the PCI bus, no nvidia module, no NVML
# library): one line and UNKNOWN (3), no sudo, no kernel-log nagging. With
# --expect-gpus the missing GPUs are a critical count mismatch (a VM whose
# passed-through GPUs vanished).
source "$(dirname "$0")/common.sh"

run no-gpu --no-color
expect_rc 3
[[ $(wc -l <"$TMP/out") == 1 ]] || fail "one line: $(cat "$TMP/out")"
grep -q "^UNKNOWN  no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, no NVML library" "$TMP/out" ||
  fail "the line: $(cat "$TMP/out")"
expect_out_lacks "no NVIDIA driver"
expect_out_lacks "sudo"

run no-gpu --json
expect_rc 3
json_check 'd["verdict"] == "UNKNOWN" and d["findings"] == [] and d["plan"] == []'
json_check 'd["nvml"]["error"].startswith("no NVIDIA GPU on this machine")'

run no-gpu --oneline
expect_rc 3
[[ "$(cat "$TMP/out")" == "UNKNOWN gpus=0/0 critical=0 warning=0" ]] || fail "oneline: $(cat "$TMP/out")"

run no-gpu --expect-gpus 8 --json
expect_rc 2
json_check '[f["id"] for f in d["findings"]] == ["gpu.count_mismatch"] and d["findings"][0]["severity"] == "critical"'
json_check '"expected 8" in d["findings"][0]["title"]'
run no-gpu --expect-gpus 8 --no-color
expect_rc 2
head -1 "$TMP/out" | grep -q "^CRITICAL" || fail "verdict: $(head -1 "$TMP/out")"
expect_out_contains "no NVIDIA GPU on this machine"
