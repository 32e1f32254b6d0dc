# make demo tells the story (issues 25, 52): scripts/demo runs the story
# scenario with the job's output. Its text shows how the previous boot ended
# (the Ceph pool's stall: hung tasks, no I/O error), the job's container made
# anew at boot and the server its start script started, one driver release throughout with nvidia-smi's header
# explained, the new disk on /data, the job's data (intact, half done) and
# the plan in the order the incident needed it; it fits 100 columns and names
# no fixture path.
source "$(dirname "$0")/common.sh"
set +e
TMPDIR="$TMP" COLUMNS=100 "$GT_SOURCE_DIR/scripts/demo" "$TOOL" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 1 # warnings only: nothing critical is there
# Wrapped lines and " \" continuations read as one text.
tr -s ' \n' '  ' <"$TMP/out" | sed 's/ \\ / /g' >"$TMP/flat"
has() { grep -qF -- "$1" "$TMP/flat" || fail "the demo does not show '$1':
$(cat "$TMP/out")"; }
lacks() { if grep -qF -- "$1" "$TMP/flat"; then fail "the demo shows '$1'"; fi; }
grep -q '^\$ cd /data && gpu-triage --path /data --data hidden-states/kimi-k2.5 --expect 37312$' "$TMP/out" ||
  fail "no command line: $(head -3 "$TMP/out")"
# What happened: a full Ceph pool pauses writes (R10), so hung tasks and no
# I/O error, then the VM killed.
has "previous boot ended abruptly"
has "3 hung-task warnings"
has "3 tasks blocked for more than 2 minutes in the previous boot's last minutes, with no I/O error"
lacks "I/O errors"
lacks "read-only"
has "last write under /data: /data/hidden-states/kimi-k2.5/rows_18000-20000/data_18399.ckpt, 9 min before the previous boot ended"
# The container: made anew at boot by specforge.service (docker run --rm),
# after the job's last write, so the local patch made in the old one is gone
# (issue 52 item 3); its start script started SGLang (Kimi-K2.5, TP 8), idle.
has "container specforge 7c3e9a1b2d4f created by specforge.service (docker run --rm: a new container each start); SGLang runs in it [docker config.v2.json]"
has "SGLang started 41 s after boot by container specforge's command (auto-start, not a person), PID 3141"
has "Container specforge (7c3e9a1b2d4f), which mounts /data, was created after the job last wrote: anything installed or patched by hand in the container the job ran in is gone"
has "SGLang server TP=8, GPUs 0-7"
has "owner process PID 3120 (the container's PID 1); docker specforge 7c3e9a1b2d4f (Docker restart policy no), created by specforge.service; started 41 s after boot (auto-start)"
has "model /models/Kimi-K2.5"
has "0% utilization"
# Stopping it stops SGLang only: the container is the job's and runs on;
# the advice says what brings it back.
has "take it out of that command (the image's start script) to keep it from coming back"
lacks "docker stop"
lacks "docker update"
lacks "systemctl stop specforge.service"
# Issue 46: the driver is 590.48.01 throughout (an NVML that answers and eight
# live CUDA processes prove it), so no split and no CUDA failure is told; the
# operator's header (NVIDIA-SMI 565.57.01, Driver Version 590.48.01) is
# explained in one line (issue 52 item 2).
has "driver 590.48.01 (NVML) kernel module 590.48.01 NVML library 590.48.01 CUDA 13.1"
lacks "differs from kernel module"
lacks "cuInit 803"
lacks "cuda.driver_mismatch"
has "In container specforge, /usr/local/bin/nvidia-smi (first on its PATH) is nvidia-smi 565.57.01, the driver 590.48.01: its header shows both"
# The disks are the story's own: / of the VM and the new 15.36 TB NVMe on /data.
has "/ 132.0 GiB of 195.9 GiB free"
has "/data 11.9 TiB of 13.8 TiB free"
lacks "mount.missing"
# The data: intact, half done, resumed by the same command.
has "18400 samples in 18400 files, all intact"
has "18912 samples not started (18400-37311)"
has "prepare_hidden_states.py"
has "First verify every written file (quick mode read the CRC32 of only"
has "\$ gpu-triage data hidden-states/kimi-k2.5 --deep --expect 37312"
# The plan in the order the incident needed it (written from its facts, as
# docs/physics.md and the story's scenario record them): free the GPUs from the
# auto-started server for good, find what ended the boot and whether the
# storage under the VM is fixed, re-apply what the old container had, then
# resume the job.
steps=$(sed -n '/^what to do/,$p' "$TMP/out" | grep -E '^ ?[0-9]+\. ' || true)
want=("1. Stop the idle SGLang server (docker container specforge (7c3e9a1b2d4f)"
  "2. The previous boot ended abruptly"
  "3. 3 tasks blocked for more than 2 minutes"
  "4. Container specforge (7c3e9a1b2d4f), which mounts /data, was created after the job last wrote"
  "5. hidden-states/kimi-k2.5: 18912 samples not started")
[[ "$(wc -l <<<"$steps")" == "${#want[@]}" ]] || fail "the plan has other steps: $steps"
for i in "${!want[@]}"; do
  line=$(sed -n "$((i + 1))p" <<<"$steps")
  [[ "$line" == *"${want[$i]}"* ]] || fail "step $((i + 1)) is not '${want[$i]}': $steps"
done
has "\$ kill 3141 # SIGTERM to the launcher of PIDs 3187 3188 3189 3190 3191 3192 3193 3194"
# The first screen carries the answer (issue 52 item 5).
head -24 "$TMP/out" | grep -q '^do first' || fail "no first step in the first 24 lines"
if grep -nE '\.gt-fixture|tests/scenarios|story/root|with-mock\.|not in the fixture|not read:' "$TMP/out" "$TMP/err"; then
  fail "fixture plumbing in the demo's output"
fi
awk 'length($0) > 100 { print "line " NR " is " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
  "$TMP/out" || fail "the demo does not fit 100 columns"
# The README's demo section is the demo's output, line for line.
"$PYTHON" - "$GT_SOURCE_DIR/README.md" "$TMP/out" <<'PY' || fail "README.md's demo section is not the demo's output"
import sys
readme, out = open(sys.argv[1]).read(), open(sys.argv[2]).read()
at = readme.index("```\n$ cd /data && gpu-triage") + 4
shown = readme[at:readme.index("```\n", at)]
if shown != out:
    import difflib
    print("".join(difflib.unified_diff(shown.splitlines(True), out.splitlines(True), "README", "demo")))
    sys.exit(1)
PY
