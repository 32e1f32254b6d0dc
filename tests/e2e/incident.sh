#!/usr/bin/env bash
# "What happened" (issue 15): the story fixture shows, in order, the
# previous boot's abrupt end after storage errors and hung tasks, the last
# write to the data path before it, this boot, and SGLang auto-started by
# sglang.service 41 s after boot; the clean reboot, panic and clock
# fixtures say theirs; with no journal the report completes, saying so.
source "$(dirname "$0")/common.sh"

BTIME=1767225600
# git keeps no mtimes: copy the scenarios and date their files again.
copy() {
  cp -r "$GT_SOURCE_DIR/tests/scenarios/$1" "$TMP/$1"
}
copy incident-story
samples="$TMP/incident-story/root/data/run-0412/samples"
touch -d @$((BTIME - 300 - 540 - 1200)) "$samples/sample-000121.jsonl"
touch -d @$((BTIME - 300 - 540 - 600)) "$samples/sample-000122.jsonl"
touch -d @$((BTIME - 300 - 540)) "$samples/sample-000123.jsonl"

run "$TMP/incident-story" --path /data --sample 0 --wide  # one line per entry
expect_rc 1  # warnings: the storage stall and the idle server; nothing critical
line_of() { grep -nF -- "$1" "$TMP/out" | head -1 | cut -d: -f1 || true; }
end=$(line_of "23:55:00  previous boot ended abruptly")
write=$(line_of "last write under /data: /data/run-0412/samples/sample-000123.jsonl, 9 min before the previous boot ended")
boot=$(line_of "this boot (boot id 00bcba97-c709)")
server=$(line_of "SGLang started 41 s after boot by sglang.service (auto-start")
[[ -n "$end" && -n "$write" && -n "$boot" && -n "$server" ]] || fail "a story line is missing: $(cat "$TMP/out")"
# The top: the verdict and the first screen (render/first_screen.h, ending
# with the first blank line), then this section.
first_blank=$(grep -n '^$' "$TMP/out" | head -1 | cut -d: -f1)
[[ "$(line_of "what happened")" == $((first_blank + 1)) ]] ||
  fail "the section is not right after the first screen: $(head -12 "$TMP/out")"
((write < end && end < boot && boot < server)) || fail "story out of order: $write $end $boot $server"
expect_out_contains "2025-12-31 23:55:00  previous boot ended abruptly"
expect_out_contains "after 3 hung tasks"  # the pool paused writes: no I/O error (R10)

run "$TMP/incident-story" --path /data --sample 0 --json
json_check 'd["incident"]["previous_boot"]["ending"] == "abrupt"'
json_check 'd["incident"]["previous_boot"]["hung_tasks"]["count"] == 3'
json_check 'd["incident"]["newest_files"][0]["path"] == "/data/run-0412/samples/sample-000123.jsonl"'
json_check '[f["id"] for f in d["findings"] if f["id"].startswith("incident.")] == ["incident.previous_boot_abrupt", "incident.hung_tasks_before_crash"]'
json_check 'all(f["severity"] == "warning" for f in d["findings"] if f["id"].startswith("incident."))'

run incident-clean-reboot --sample 0 --json
json_check 'd["incident"]["previous_boot"]["ending"] == "reboot"'
json_check 'not any(f["id"].startswith("incident.") for f in d["findings"])'

# The EFI record's name carries the panic's time: no mtime needed (git keeps none).
run incident-panic --sample 0 --json
json_check 'd["incident"]["previous_boot"]["ending"] == "kernel_panic"'
json_check 'any(f["id"] == "incident.kernel_panic" and "Fatal exception in interrupt" in f["evidence"] for f in d["findings"])'

run incident-clock-off --sample 0 --wide
expect_out_contains "not read: journal (boot list): No journal files were found."
run incident-clock-off --sample 0 --json
json_check 'd["incident"]["clock"]["rtc_offset_s"] == 7200'
json_check '{"clock.unsynchronised", "clock.rtc_drift"} <= {f["id"] for f in d["findings"]}'
json_check '[s["finding_ids"][0] for s in d["plan"]][:1] == ["clock.unsynchronised"]'

# journalctl hangs: the report still completes within --timeout.
rm -rf "$TMP/incident-story"
copy incident-story
echo timeout >"$TMP/incident-story/root/.gt-fixture/commands/list-boots.rc"
run "$TMP/incident-story" --sample 0 --timeout 2s --wide
expect_rc 0  # nothing critical; without the journal the storage failure is not known
expect_out_contains "not read: journal (boot list): journalctl timed out"
((WALL_MS < 5000)) || fail "took $WALL_MS ms"
echo PASS
