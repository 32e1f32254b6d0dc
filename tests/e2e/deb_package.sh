# The Debian package (what `make deb` builds, CPack's DEB generator): its
# control data and contents, and, unpacked into a scratch root, a binary
# that answers --version, a man page man can show, bash completion and the
# systemd unit.
source "$(dirname "$0")/common.sh"
command -v cpack >/dev/null || fail "cpack missing"

cpack --config "$GT_BUILD_DIR/CPackConfig.cmake" -B "$TMP/pkg" >"$TMP/cpack.log" 2>&1 ||
  fail "cpack: $(tail -20 "$TMP/cpack.log")"
deb=$(ls "$TMP"/pkg/gpu-triage_*_*.deb 2>/dev/null | head -1)
[[ -n "$deb" ]] || fail "no .deb: $(ls "$TMP/pkg")"

dpkg-deb -f "$deb" Package Version Architecture Depends >"$TMP/out"
expect_out_contains "Package: gpu-triage"
expect_out_contains "Version: 0.1.0"
expect_out_contains "libcpp-httplib0.11"
expect_out_contains "libc6"

dpkg-deb -c "$deb" | awk '{print $NF}' >"$TMP/out"
for f in ./usr/bin/gpu-triage ./usr/share/man/man1/gpu-triage.1.gz \
  ./usr/share/bash-completion/completions/gpu-triage \
  ./usr/lib/systemd/system/gpu-triage-serve.service ./etc/default/gpu-triage-serve \
  ./usr/lib/systemd/system/gpu-triage-record.service ./usr/lib/systemd/system/gpu-triage-record.timer \
  ./usr/share/gpu-triage/contrib/npd/gpu-triage-monitor.json \
  ./usr/share/gpu-triage/contrib/npd/check-config.py \
  ./usr/share/gpu-triage/contrib/nhc/gpu_triage.nhc \
  ./usr/share/gpu-triage/contrib/slurm/gpu-triage-slurm-check \
  ./usr/share/gpu-triage/contrib/slurm/slurm.conf.example \
  ./usr/share/doc/gpu-triage/fleet-integration.md ./usr/share/doc/gpu-triage/data.md \
  ./usr/share/doc/gpu-triage/free.md ./usr/share/doc/gpu-triage/fleet.md; do
  grep -qxF -- "$f" "$TMP/out" || fail "$f not in the package"
done
expect_out_lacks "mock_nvml"
expect_out_lacks "gt_unit_tests"
# Listed to a file first: `grep -q` closing the pipe early would kill dpkg-deb
# with SIGPIPE and fail the pipeline under pipefail.
dpkg-deb -c "$deb" >"$TMP/listing"
grep -q '^-rwxr-xr-x .* ./usr/share/gpu-triage/contrib/slurm/gpu-triage-slurm-check$' "$TMP/listing" ||
  fail "slurm script not executable"
dpkg-deb --ctrl-tarfile "$deb" | tar -t >"$TMP/out"
expect_out_contains "./conffiles"
expect_out_contains "./postinst"

# Unpacked into a scratch root (what dpkg -i puts on a machine).
dpkg-deb -x "$deb" "$TMP/root"
[[ "$("$TMP/root/usr/bin/gpu-triage" --version)" == "gpu-triage 0.1.0" ]] || fail "--version"
"$TMP/root/usr/bin/gpu-triage" serve --help >"$TMP/out" || fail "serve --help"
expect_out_contains "--listen"
MANWIDTH=80 man -l "$TMP/root/usr/share/man/man1/gpu-triage.1.gz" 2>/dev/null >"$TMP/out" ||
  fail "man -l"
expect_out_contains "gpu-triage - are the GPUs on this node alive"
expect_out_contains "--textfile"
expect_out_contains "gpu-triage data DIR..."  # each command's section
expect_out_contains "--move-bad-to"
expect_out_contains "Exit status of free"
grep -q '^ExecStart=/usr/bin/gpu-triage serve \$GPU_TRIAGE_SERVE_ARGS$' \
  "$TMP/root/usr/lib/systemd/system/gpu-triage-serve.service" || fail "unit ExecStart"
# The record across boots is writable under ProtectSystem=strict.
for u in gpu-triage-serve.service gpu-triage-record.service; do
  grep -qx 'StateDirectory=gpu-triage' "$TMP/root/usr/lib/systemd/system/$u" || fail "$u: StateDirectory"
done
if [[ -r /usr/share/bash-completion/bash_completion ]]; then
  bash -c '
    source /usr/share/bash-completion/bash_completion
    source "$1/usr/share/bash-completion/completions/gpu-triage"
    COMP_WORDS=(gpu-triage --exit-codes ""); COMP_CWORD=2; COMP_LINE="gpu-triage --exit-codes "
    COMP_POINT=${#COMP_LINE}; _gpu_triage; echo "${COMPREPLY[*]}"' _ "$TMP/root" >"$TMP/out" 2>&1
  [[ "$(cat "$TMP/out")" == "nagios npd" ]] || fail "completion: $(cat "$TMP/out")"
fi
