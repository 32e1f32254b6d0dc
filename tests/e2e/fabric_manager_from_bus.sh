# Fabric Manager's need from the bus (issue 49 item 2): an HGX A100 node
# (healthy-h100x8's tree with A100s and the baseboard's NVSwitches, 10de:1af1
# of class 0x0680), where NVML reports no fabric state (it does only from
# Hopper on) and no nv-fabricmanager process runs: every CUDA job fails with
# 802, said once per GPU as fabric.not_registered (the one finding for it,
# shared with NVML's own registration state). With Fabric Manager running,
# nothing is said.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8" "$TMP/sc"
"$PYTHON" - "$TMP/sc/scenario.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for g in d["devices"]:
    g["name"] = "NVIDIA A100-SXM4-80GB"
    g["pci"]["device_id"] = "0x20B210DE"
    g.pop("fabric", None)
json.dump(d, open(p, "w"), indent=2)
PY
for sw in "$TMP/sc/root/sys/bus/pci/devices/"*; do
  grep -q '^0x0680' "$sw/class" && printf '0x1af1\n' >"$sw/device"
done

run "$TMP/sc" --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "fabric.not_registered"]'
json_check "len($f) == 8" "one per GPU"
json_check "all('CUDA will fail with 802' in x['title'] and x['severity'] == 'critical' for x in $f)"
json_check "'4 NVSwitch devices on the PCI bus' in $f[0]['evidence'] and 'no Fabric Manager process runs' in $f[0]['evidence']"
json_check "d['nvswitches'] == ['0000:05:00.0', '0000:06:00.0', '0000:07:00.0', '0000:08:00.0']"

# Fabric Manager runs (systemd's nvidia-fabricmanager unit): no finding.
fm="$TMP/sc/root/proc/2210"
mkdir -p "$fm"
printf '/usr/bin/nv-fabricmanager\0-c\0/usr/share/nvidia/nvswitch/fabricmanager.cfg\0' >"$fm/cmdline"
printf 'nv-fabricmanage\n' >"$fm/comm"
printf '0::/system.slice/nvidia-fabricmanager.service\n' >"$fm/cgroup"
printf '2210 (nv-fabricmanage) S 1 2210 2210 0 -1 4194560 0 0 0 0 1 1 0 0 20 0 9 0 2500 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n' >"$fm/stat"
printf 'Name:\tnv-fabricmanage\nUid:\t0\t0\t0\t0\n' >"$fm/status"
run "$TMP/sc" --json --sample 0 --no-state
json_check "not any(f['id'] == 'fabric.not_registered' for f in d['findings'])" "Fabric Manager runs"
json_check "[s['what'] for s in d['nvidia_services']] == ['Fabric Manager']"
# Inside a container (a DaemonSet's pod): the host's Fabric Manager is not
# among the container's processes, so none seen is not "not running" (it was
# 8 criticals before the new-operator trial of issues 48 and 49): the same
# finding says it is unknown, as info.
rm -rf "$fm"
: >"$TMP/sc/root/.dockerenv"
for n in nvidiactl nvidia-uvm nvidia-uvm-tools nvidia0 nvidia1 nvidia2 nvidia3 nvidia4 nvidia5 nvidia6 nvidia7; do
  : >"$TMP/sc/root/dev/$n"
done
run "$TMP/sc" --json --sample 0 --no-state
json_check "d['cuda']['devices']['in_container']" "the tree is a container's"
json_check "all(f['severity'] == 'info' for f in d['findings'] if f['id'] == 'fabric.not_registered')" \
  "in a container: whether Fabric Manager runs is unknown, never 'not running'"
json_check "len([f for f in d['findings'] if f['id'] == 'fabric.not_registered']) == 8"
json_check "d['fabric_manager']['listening'] is None and d['fabric_manager']['socket'] == '127.0.0.1:6666'" \
  "no /proc/net/tcp in the tree: unknown"
# The container shares the host's network (hostNetwork): Fabric Manager's
# command socket, 127.0.0.1:6666 by fabricmanager.cfg's defaults, has a
# listener in /proc/net/tcp (tcp4_seq_show's format): it runs.
mkdir -p "$TMP/sc/root/proc/net"
printf '%s\n' \
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode" \
  "   0: 0100007F:1A0A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41234 1 0000000000000000 100 0 0 10 0" \
  >"$TMP/sc/root/proc/net/tcp"
run "$TMP/sc" --json --sample 0 --no-state
json_check "d['fabric_manager']['listening'] is True" "the listener read"
json_check "not any(f['id'] == 'fabric.not_registered' for f in d['findings'])" \
  "a listener on Fabric Manager's command socket: it runs"
echo "PASS: NVSwitches on the bus without Fabric Manager predict 802; with it (its process or its socket), nothing; in a container without its socket, unknown"

