#!/usr/bin/env bash
# `gpu-triage --cuda` (issue 35): the probe's findings join the triage's
# verdict and plan (an older cuda-compat libcuda's 803 becomes a plan step);
# without --cuda nothing is probed; on the story, whose GPUs are all held,
# --cuda probes none and adds no failure; a capture cannot be probed.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run cuda-compat-older --json --no-state --sample 0
json_check 'not any(f["id"] == "cuda.init_failed" for f in d["findings"])'

run cuda-compat-older --cuda --json --no-state --sample 0
expect_rc 2
# The probe proves the prediction (803: a libcuda older than the module):
# one cause, one finding and one plan step, the proof joined into it.
json_check '[f["joined_ids"] for f in d["findings"] if f["id"] == "cuda.driver_mismatch"] == [["cuda.init_failed"]]' "the proof joined to the prediction"
json_check '"proven by the probe: " in [f for f in d["findings"] if f["id"] == "cuda.driver_mismatch"][0]["evidence"]'
json_check 'not any(f["id"] == "cuda.init_failed" for f in d["findings"])' "no second finding for one cause"
json_check '[p["finding_ids"] for p in d["plan"] if "cuda.driver_mismatch" in p["finding_ids"]] == [["cuda.driver_mismatch"]]' "one plan step"

run story --cuda --json --no-state --sample 0
json_check 'not any(f["id"].startswith("cuda.") for f in d["findings"])' "nothing probed, nothing concluded"

run story --cuda --smi-xml "$GT_SOURCE_DIR/tests/fixtures/real-gpu-check/desktop-gpu.xml"
expect_rc 64
grep -q -- "--cuda" "$TMP/err" || fail "the refusal names --cuda: $(cat "$TMP/err")"

# Bad usage: a GPU the node does not have, a size or a deadline that does
# not parse: exit 64 with the reason, nothing probed.
for args in "--gpus 9" "--gpus GPU-no-such-uuid" "--memory 1.5G" "--memory 0" "--timeout soon" "--timeout 0s"; do
  # shellcheck disable=SC2086
  run healthy-h100x8 cuda $args
  expect_rc 64
  [[ -s "$TMP/err" && ! -s "$TMP/out" ]] || fail "cuda $args: want a reason on stderr only: $(cat "$TMP/out" "$TMP/err")"
done
