# Driver packages installed (libnvidia-ml answers DRIVER_NOT_LOADED) but no
# NVIDIA device on the PCI bus: "no NVIDIA GPU on this machine", one line
# naming the library, exit 3 - and the clock, unsynchronised only by the
# kernel's flag (a VM the hypervisor keeps in time, no NTP), does not break
# that line. --expect-gpus 8 is gpu.count_mismatch with advice for the
# machine (VM: passthrough; bare metal: BIOS, slot, power), never modprobe.
# (tests/nvidia/real_library_runs.sh does the same with NVIDIA's library.)
source "$(dirname "$0")/common.sh"

for s in driverless-vm driverless-metal; do
  run "$s" --no-color
  expect_rc 3
  [[ $(wc -l <"$TMP/out") == 1 ]] || fail "$s: one line: $(cat "$TMP/out")"
  grep -q "^UNKNOWN  no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, NVML library 535.261.03 installed (" "$TMP/out" ||
    fail "$s: the line: $(cat "$TMP/out")"
  expect_out_lacks "modprobe"

  # The clock note is in the JSON, as info.
  run "$s" --json
  expect_rc 3
  json_check '[(f["id"], f["severity"]) for f in d["findings"]] == [("clock.unsynchronised", "info")]'
  json_check 'd["plan"] == []'
done

run driverless-vm --expect-gpus 8 --json
expect_rc 2
json_check '[f["id"] for f in d["findings"] if f["severity"] != "info"] == ["gpu.count_mismatch"]'
json_check 'd["findings"][0]["severity"] == "critical"'
json_check '"did not pass the GPUs through" in d["findings"][0]["action"]'
json_check '"DMI: QEMU Standard PC (Q35 + ICH9, 2009); cpuinfo: hypervisor flag" in d["findings"][0]["evidence"]'
json_check 'not any("modprobe" in c for f in d["findings"] for c in f["commands"])'

run driverless-metal --expect-gpus 8 --json
expect_rc 2
json_check '"BIOS" in d["findings"][0]["action"] and "power" in d["findings"][0]["action"]'
json_check '"cpuinfo: no hypervisor flag" in d["findings"][0]["evidence"]'
json_check 'not any("modprobe" in c for f in d["findings"] for c in f["commands"])'
run driverless-metal --expect-gpus 8 --no-color
expect_rc 2
expect_out_contains "No NVIDIA GPU on this machine, expected 8"

# A GPU on the bus with the module not loaded stays driver_not_loaded.
run driver-not-loaded --json
expect_rc 2
json_check '[f["id"] for f in d["findings"]][:1] == ["nvml.driver_not_loaded"]'
json_check 'any("modprobe nvidia" in c for c in d["findings"][0]["commands"])'
