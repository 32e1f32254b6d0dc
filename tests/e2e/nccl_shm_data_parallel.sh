# /dev/shm of Docker's default 64 MiB under a multi-process NCCL job that is
# not tensor-parallel by any flag (issue 49 item 4): the tree of
# nccl-shm-64m rewritten as torchrun's data-parallel workers
# (torch.distributed.run starting "python -u train.py" eight times, one per
# GPU). NCCL's peers on the node are the job's processes on GPUs; the
# finding names the job and its ranks.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/nccl-shm-64m" "$TMP/sc"
p="$TMP/sc/root/proc"
# proc_as PID COMM ARGV...: its cmdline (NUL-separated), comm, status and stat name.
proc_as() {
  local pid="$1" comm="$2"
  shift 2
  printf '%s\0' "$@" >"$p/$pid/cmdline"
  printf '%s\n' "$comm" >"$p/$pid/comm"
  sed -i "1s/.*/Name:\t$comm/" "$p/$pid/status"
  sed -i "s/^$pid ([^)]*)/$pid ($comm)/" "$p/$pid/stat"
}
proc_as 6100 torchrun /opt/venv/bin/python /opt/venv/bin/torchrun --nproc-per-node 8 train.py \
  --epochs 3
for i in 0 1 2 3 4 5 6 7; do
  proc_as $((6101 + i)) python /opt/venv/bin/python -u train.py --epochs 3
done

run "$TMP/sc" --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "nccl.dev_shm_small"]'
json_check "len($f) == 1" "one /dev/shm finding for the data-parallel job"
json_check "'under the torchrun job (pid 6101, python) with' in $f[0]['title']" "the job named"
json_check "'8 local ranks (pids 6101, 6102, 6103, 6104, 6105, 6106, 6107, 6108)' in $f[0]['title']"
json_check "[(s['kind'], s['tensor_parallel']) for s in d['servers']] == [('torchrun', None)]" \
  "a torchrun job with no tensor parallel by its flags"
echo "PASS: /dev/shm 64 MiB under eight torchrun workers names the job and its ranks"
