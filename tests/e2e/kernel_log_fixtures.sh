# --kernel-log FILE on every real kernel-log fixture: each Xid/SXid comes
# out as a finding with a severity and an action (the parser's own unit tests
# assert every event; this checks the whole path to --json).
source "$(dirname "$0")/common.sh"

FIX="$GT_SOURCE_DIR/tests/fixtures/real/kernel-log"
if [[ ! -d "$FIX" ]]; then
  echo "FAIL: $FIX not present (the fixtures live in the repository)"
  exit 1
fi

check() {
  local file="$1" ids="$2"
  run healthy-h100x8 --kernel-log "$FIX/$file" --json --sample 0
  json_check "sorted(set(f['id'] for f in d['findings'] if f['id'].startswith(('gpu.xid.', 'gpu.sxid.', 'gpu.fallen')))) == sorted($ids)" "$file: $ids"
  json_check "all(f['severity'] in ('info', 'warning', 'critical') and f['action'] for f in d['findings'] if f['id'].startswith(('gpu.xid.', 'gpu.sxid.', 'gpu.fallen')))" "$file: severity and action"
  json_check "d['kernel_log']['sources'][0]['read'] is True and d['kernel_log']['sources'][0]['boot'] == 'file'"
}

check gpud-xe9680-xid119-gsp-rpc-timeout-dmesg-T.log '["gpu.xid.119"]'
check gpud-xid13-43-sm-exception-dmesg-decode.log '["gpu.xid.13", "gpu.xid.43"]'
check gpud-xid48-63-94-dbe-rowremap-contained.log '["gpu.xid.48", "gpu.xid.63", "gpu.xid.94"]'
check issue-gpud1160-1174-nvlink5-xid144-149.log '["gpu.xid.144", "gpu.xid.145", "gpu.xid.149"]'
check issue-gpud46-xid13-109-dmesg-ctime.log '["gpu.xid.13", "gpu.xid.109"]'
check issue-nvsentinel155-fallen-off-bus-multiline-no-xid-570.158.01.log '["gpu.fallen_off_bus_logged"]'
check issue-nvtrust124-h100-nvswitch-sxid22013.log '["gpu.sxid.22013"]'
check issue-ogkm1150-xid45-caused-by-xid149-145-journal-590.48.01.log '["gpu.xid.45"]'
check issue-ogkm1151-rtx5080-xid79-journal-595.71.05.log '["gpu.xid.79"]'
check pastebin-xJaypMZt-legacy-fallen-off-bus-xid3-syslog.log '["gpu.fallen_off_bus_logged", "gpu.xid.3"]'

# Xid 79 is critical and makes the verdict critical.
run healthy-h100x8 --kernel-log "$FIX/issue-ogkm1151-rtx5080-xid79-journal-595.71.05.log" --sample 0
expect_rc 2
expect_out_contains "Xid 79"

# An unknown Xid says so; an unreadable file is a finding, not a pass.
run healthy-h100x8 --kernel-log "$FIX/pastebin-xJaypMZt-legacy-fallen-off-bus-xid3-syslog.log" --json --sample 0
json_check "any('not in the catalogue' in f['title'] for f in d['findings'] if f['id'] == 'gpu.xid.3')"
run healthy-h100x8 --kernel-log /nonexistent/kern.log --json --sample 0
expect_rc 1
json_check "any(f['id'] == 'kernel_log.unreadable' and f['severity'] == 'warning' and 'nonexistent' in f['evidence'] for f in d['findings'])"
