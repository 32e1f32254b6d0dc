# /dev/shm of Docker's default 64 MiB under a multi-process NCCL job that is
# not tensor-parallel by any flag (issue 49 item 4): the tree of
# nccl-shm-64m rewritten as torchrun's data-parallel workers
# (torch.distributed.run starting "python -u train.py" eight times, one per
# GPU). NCCL's peers on the node are the job's processes on GPUs; the
# finding names the job, its root and its ranks, and NCCL's need for them
# (9,633,792 bytes per local rank, docs/physics.md). Every job is judged:
# two torchrun jobs of four ranks each are two findings. A size that could
# not be read in a container is unknown, said.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/nccl-shm-64m" "$TMP/sc"
p="$TMP/sc/root/proc"
proc_as "$p" 6100 torchrun /opt/venv/bin/python /opt/venv/bin/torchrun --nproc-per-node 8 train.py \
  --epochs 3
for i in 0 1 2 3 4 5 6 7; do
  proc_as "$p" $((6101 + i)) python /opt/venv/bin/python -u train.py --epochs 3
done

run "$TMP/sc" --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "nccl.dev_shm_small"]'
json_check "len($f) == 1" "one /dev/shm finding for the data-parallel job"
json_check "'under the torchrun job (pid 6101, python) with' in $f[0]['title']" "the job named"
json_check "'8 local ranks (pids 6101, 6102, 6103, 6104, 6105, 6106, 6107, 6108)' in $f[0]['title']"
json_check "'the job\\'s root is PID 6100 (torchrun)' in $f[0]['evidence']" "its root"
json_check "'needs at least 74 MiB for 8 local ranks' in $f[0]['evidence']" "NCCL's need for its ranks"
json_check "[(s['kind'], s['tensor_parallel']) for s in d['servers']] == [('torchrun', None)]" \
  "a torchrun job with no tensor parallel by its flags"

# Two jobs of four ranks: ranks 6105-6108 under a second torchrun, 6200.
proc_copy "$p" 6100 6200
proc_as "$p" 6200 torchrun /opt/venv/bin/python /opt/venv/bin/torchrun --nproc-per-node 4 eval.py
for pid in 6105 6106 6107 6108; do
  proc_reparent "$p" $pid 6200
done
run "$TMP/sc" --json --sample 0 --no-state
json_check "len(d['servers']) == 2" "two jobs"
json_check "sorted(f['title'].split(' with ')[1].split(':')[0] for f in $f) == ['4 local ranks (pids 6101, 6102, 6103, 6104)', '4 local ranks (pids 6105, 6106, 6107, 6108)']" \
  "each job with its own ranks"

# /dev/shm's size not read in this container: unknown, a warning, not a pass.
# (The device nodes as stand-ins, so the container is seen: /.dockerenv.)
for n in nvidiactl nvidia-uvm nvidia-uvm-tools nvidia0 nvidia1 nvidia2 nvidia3 nvidia4 nvidia5 \
  nvidia6 nvidia7; do
  : >"$TMP/sc/root/dev/$n"
done
rm "$TMP/sc/root/.gt-fixture/dev-shm-bytes"
run "$TMP/sc" --json --sample 0 --no-state
json_check "len($f) == 2 and all(x['severity'] == 'warning' and 'could not be read' in x['title'] for x in $f)" \
  "an unread size is unknown"
echo "PASS: /dev/shm under torchrun jobs: each job, its root and ranks, NCCL's need; unread is unknown"
