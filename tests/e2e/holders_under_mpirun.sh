# Server identity through a process launcher (issue 49 item 5): eight MPI
# ranks of a program of no known kind under mpirun (nccl-shm-64m's tree
# rewritten: "mpirun -np 8 --bind-to none -x NCCL_DEBUG python3 train.py").
# The kind is the program the launcher runs, "unknown (train.py)", never the
# launcher's name; its ranks are NCCL peers under the 64 MiB /dev/shm
# (item 4), named in that finding.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/nccl-shm-64m" "$TMP/sc"
p="$TMP/sc/root/proc"
proc_as "$p" 6100 mpirun mpirun -np 8 --bind-to none -x NCCL_DEBUG --mca btl_tcp_if_include eth0 \
  python3 train.py --epochs 3
for i in 0 1 2 3 4 5 6 7; do
  proc_as "$p" $((6101 + i)) python3 python3 train.py --epochs 3
done

run "$TMP/sc" --json --sample 0 --no-state
json_check "[(s['kind'], s['recognised']) for s in d['servers']] == [('unknown (train.py)', False)]" \
  "named by the program mpirun runs"
f='[f for f in d["findings"] if f["id"] == "nccl.dev_shm_small"]'
json_check "len($f) == 1 and '8 local ranks (pids 6101, 6102, 6103, 6104, 6105, 6106, 6107, 6108)' in $f[0]['title']"
# Intel MPI's mpirun is a shell script, run by its interpreter: the same
# (it was the kind "mpirun" before the new-operator trial of issues 48, 49).
proc_as "$p" 6100 mpirun /bin/sh /opt/intel/oneapi/mpi/2021.11/bin/mpirun -n 8 python3 train.py --epochs 3
run "$TMP/sc" --json --sample 0 --no-state
json_check "[(s['kind'], s['recognised']) for s in d['servers']] == [('unknown (train.py)', False)]" \
  "named by the program Intel MPI's mpirun script runs"
echo "PASS: MPI ranks of an unknown program: 'unknown (train.py)', and NCCL's peers under /dev/shm"
