# Helpers for the `gpu-triage free` end-to-end tests (sourced after
# tests/e2e/common.sh): mock NVML scenarios that map real PIDs to GPUs, and
# process checks.

# free_scenario FILE PID_ENV...: one H100 per name, GPU i held (70000 MiB)
# by the process whose PID is in the environment variable named i-th.
free_scenario() {
  local file="$1" devs="" i=0
  shift
  for env in "$@"; do
    devs+="${devs:+, }$(printf '{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%s", "pci": {"bus_id": "00000000:%02X:00.0", "device_id": "0x233010DE"},
    "memory": {"total_mib": 81559, "reserved_mib": 0, "used_mib": 0}, "utilization": {"gpu": [0], "memory": [0]},
    "processes": [{"pid_env": "%s", "used_mib": 70000, "type": "compute"}]}' "$i" $((0x19 + i)) "$env")"
    i=$((i + 1))
  done
  printf '{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040, "devices": [%s]}' \
    "$devs" >"$file"
}

# alive PID: running (a zombie is not).
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]]; }

# in_session SID: the running processes of a session (a restart loop started
# with setsid), one PID a line.
in_session() { ps -e -o sid=,pid=,stat= | awk -v s="$1" '$1 == s && $3 !~ /^Z/ {print $2}'; }

# wait_for FILE: until a launcher has written its workers' PIDs there.
wait_for() {
  for _ in $(seq 100); do [[ -s "$1" ]] && return 0; sleep 0.1; done
  fail "no PIDs written to $1"
}

# expect_session_gone SID: nothing of the session runs now, nor 2 s later
# (a loop left running would have started the server again by then).
expect_session_gone() {
  local left
  left=$(in_session "$1")
  [[ -z "$left" ]] || fail "processes of the tree remain: $left"
  sleep 2
  left=$(in_session "$1")
  [[ -z "$left" ]] || fail "the server came back: $left"
}
