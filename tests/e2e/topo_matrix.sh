# gpu-triage topo (issue 38 item 1): the story's VM after the re-attach
# (GPUs 3 and 4 without P2P) as a matrix within 80 columns, the pair marked;
# the RDMA scenario's NICs as columns, each GPU's own NIC under its switch;
# the same matrix in `--wide`; nothing to show is exit 3, not an empty OK.
source "$(dirname "$0")/common.sh"

COLUMNS=80 run p2p-lost-vm topo
[[ $RC == 0 ]] || fail "topo exited $RC: $(cat "$TMP/out")"
while IFS= read -r line; do
  (( ${#line} <= 80 )) || fail "a line wider than 80 columns: $line"
done <"$TMP/out"
grep -qE '^  GPU3 +NODE +NODE +NODE +X +SYS\* ' "$TMP/out" || fail "GPU3-GPU4 not marked: $(cat "$TMP/out")"
grep -qE '^  GPU4 +SYS +SYS +SYS +SYS\* +X ' "$TMP/out" || fail "GPU4-GPU3 not marked: $(cat "$TMP/out")"

run rdma-port-down topo
[[ $RC == 0 ]] || fail "topo exited $RC"
grep -qE '^  GPU3( +[^ ]+){11} +SW ' "$TMP/out" || fail "GPU3's own NIC is not SW: $(cat "$TMP/out")"
grep -qF "NIC3: mlx5_3 (" "$TMP/out" || fail "the NICs are not named"

run p2p-lost-vm --wide --no-state
grep -qF "topology (NVML per GPU pair" "$TMP/out" || fail "--wide has no matrix"

run no-gpu topo
[[ $RC == 3 ]] || fail "nothing to show exited $RC, not 3: $(cat "$TMP/out")"
grep -qF "nothing to show" "$TMP/out" || fail "no reason given"
echo "ok"
