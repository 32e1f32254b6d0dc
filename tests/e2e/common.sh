# Helpers for the end-to-end tests (sourced). Each test is one behaviour,
# run by CTest as `bash tests/e2e/<name>.sh` with GT_BUILD_DIR and
# GT_SOURCE_DIR set; it exits non-zero on the first failed expectation.
set -euo pipefail

GT_SOURCE_DIR="${GT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
GT_BUILD_DIR="${GT_BUILD_DIR:-$GT_SOURCE_DIR/build}"
export GT_BUILD_DIR
TOOL="$GT_BUILD_DIR/gpu-triage"
WITH_MOCK="$GT_SOURCE_DIR/scripts/with-mock"
# Debian's interpreter directly: a version-manager shim can cost 0.5 s a call.
PYTHON=python3
[[ -x /usr/bin/python3 ]] && PYTHON=/usr/bin/python3
TMP="$(mktemp -d "${TMPDIR:-/tmp}/gt-e2e.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
# Each test keeps its own record across boots: a live run (--root /) would
# read and write /var/lib/gpu-triage, one test's fingerprint becoming the
# next one's "before" (--state-dir still wins).
export GPU_TRIAGE_STATE_DIR="$TMP/state"
# with-mock's answer for a scenario this test copies or edits, kept while
# the test runs (scripts/with-mock: Python's start-up per call otherwise).
export WITH_MOCK_CACHE="$TMP/with-mock-cache"

# The report writes commands without "sudo" when it runs as root (what a
# root shell types); tests that name a command put "$SUDO" in front.
SUDO="sudo "
[[ "$(id -u)" != 0 ]] || SUDO=""

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# limit_memory KB: in a subshell, bounds the address space (ulimit -v). A
# sanitizer build (make check-asan sets GT_SANITIZED) reserves terabytes of
# shadow address space, so there the bound is ASan's own resident limit.
limit_memory() {
  if [[ -n "${GT_SANITIZED:-}" ]]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=$(($1 / 1024 + 200))"
  else
    ulimit -v "$1"
  fi
}

# run SCENARIO ARGS...: runs the tool against a scenario; stdout in $TMP/out,
# stderr in $TMP/err, exit code in $RC, wall time in ms in $WALL_MS.
run() {
  local scenario="$1"
  shift
  local t0 t1
  t0=$(date +%s%N)
  set +e
  "$WITH_MOCK" "$scenario" "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  t1=$(date +%s%N)
  WALL_MS=$(((t1 - t0) / 1000000))
}

# keep_report NAME: keeps the report in $TMP/out (and the exit code $RC)
# for summarise_kept, in the order kept.
KEPT=0
keep_report() {
  mkdir -p "$TMP/kept"
  KEPT=$((KEPT + 1))
  local n
  n=$(printf '%04d' "$KEPT")
  cp "$TMP/out" "$TMP/kept/$n.json"
  printf '%s\t%s\n' "$1" "${RC:-0}" >"$TMP/kept/$n.name"
}

# summarise_kept <<'PY' ... PY: one Python over every kept report in order
# (a start-up per report was most of a loop's CPU): the script on stdin
# runs with name, rc, d (the report) and src (the source tree) bound, and
# json and re imported; what it prints is $TMP/all.
summarise_kept() {
  "$PYTHON" -c '
import glob, json, os, re, sys
kept, src = sys.argv[1], sys.argv[2]
code = compile(sys.stdin.read(), "summary", "exec")
for path in sorted(glob.glob(os.path.join(kept, "*.json"))):
    name, rc = open(path[:-5] + ".name").read().rstrip("\n").split("\t")
    exec(code, {"name": name, "rc": rc, "d": json.load(open(path)), "src": src, "json": json, "re": re})
' "$TMP/kept" "$GT_SOURCE_DIR" >"$TMP/all"
}

# no_node ARGS...: the tool with no mock library and no GPU_TRIAGE_ROOT, as
# a bundle's replay or a fleet of files runs (nothing of this machine to
# read); stdout in $TMP/out, stderr in $TMP/err, exit code in $RC.
no_node() {
  set +e
  env -u GPU_TRIAGE_ROOT GPU_TRIAGE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 \
    "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

# replay BUNDLE ARGS...: gpu-triage --bundle BUNDLE ARGS --no-state (no_node).
replay() {
  local bundle="$1"
  shift
  no_node --bundle "$bundle" "$@" --no-state
}

# unpacked_story_bundle [SCENARIO]: the story's bundle (or SCENARIO's) in
# $TMP/b.tar.zst, extracted into $TMP/x; $members lists its top-level
# members (to tar them again, edited: tar -C "$TMP/x" --zstd -cf FILE $members).
unpacked_story_bundle() {
  run "${1:-story}" bundle -o "$TMP/b.tar.zst" --no-state --timeout 2s
  expect_rc 0
  mkdir "$TMP/x"
  tar -xf "$TMP/b.tar.zst" -C "$TMP/x"
  members=$(cd "$TMP/x" && ls -A)
}

# run_data ARGS...: `gpu-triage data ARGS` (no mock: it reads files only);
# stdout in $TMP/out, stderr in $TMP/err, exit code in $RC.
run_data() {
  set +e
  "$TOOL" data "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

expect_rc() {
  [[ "$RC" == "$1" ]] || fail "exit code $RC, want $1; stdout: $(head -c 2000 "$TMP/out"); stderr: $(head -c 2000 "$TMP/err")"
}

expect_out_contains() {
  grep -qF -- "$1" "$TMP/out" || fail "stdout lacks '$1':
$(cat "$TMP/out")"
}

expect_out_lacks() {
  if grep -qF -- "$1" "$TMP/out"; then fail "stdout has '$1'"; fi
}

# proc_as PROC PID COMM ARGV...: rewrites a fixture's /proc/PID (PROC is the
# tree's proc folder) as a process running ARGV: its cmdline
# (NUL-separated), comm, status and stat name.
proc_as() {
  local proc="$1" pid="$2" comm="$3"
  shift 3
  printf '%s\0' "$@" >"$proc/$pid/cmdline"
  printf '%s\n' "$comm" >"$proc/$pid/comm"
  sed -i "1s/.*/Name:\t$comm/" "$proc/$pid/status"
  sed -i "s/^$pid ([^)]*)/$pid ($comm)/" "$proc/$pid/stat"
}

# proc_copy PROC FROM TO: a new /proc/TO, a copy of /proc/FROM.
proc_copy() {
  cp -r "$1/$2" "$1/$3"
  sed -i "s/^$2 /$3 /" "$1/$3/stat"
}

# proc_reparent PROC PID PPID: /proc/PID's parent is PPID.
proc_reparent() {
  sed -i "s/^$2 (\([^)]*\)) \([A-Z]\) [0-9]* /$2 (\1) \2 $3 /" "$1/$2/stat"
}

# json_check PYTHON_EXPR [MESSAGE]: evaluates an assertion over d, the JSON
# document in $TMP/out.
json_check() {
  "$PYTHON" - "$TMP/out" "$1" "${2:-$1}" <<'PY' || fail "JSON check failed: ${2:-$1}"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d, "all": all, "any": any, "len": len, "abs": abs})
if not ok:
    print("assertion false: " + sys.argv[3], file=sys.stderr)
    sys.exit(1)
PY
}
