# A driver/library version mismatch: the recipe names what holds the running
# module (nvidia-persistenced, Fabric Manager, DCGM from /proc; nvidia_peermem
# and nvidia_drm from /sys/module) and the full unload order, with reboot as
# the simple path.
source "$(dirname "$0")/common.sh"

run version-mismatch --json
expect_rc 2
json_check '[m["name"] for m in d["nvidia_modules"]] == ["nvidia_peermem", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"]' "unload order from /sys/module holders"
json_check '[(s["what"], s["pid"], s["unit"]) for s in d["nvidia_services"]] == [("nvidia-persistenced", 2210, "nvidia-persistenced.service"), ("Fabric Manager", 2305, "nvidia-fabricmanager.service"), ("DCGM", 2400, "nvidia-dcgm.service")]'
json_check 'd["findings"][0]["id"] == "nvml.version_mismatch"'
json_check 'all(w in d["findings"][0]["evidence"] for w in ["nvidia-persistenced (PID 2210", "Fabric Manager (PID 2305", "DCGM (PID 2400", "module nvidia_peermem"])' "what holds the module"
json_check "'${SUDO}rmmod nvidia_peermem nvidia_uvm nvidia_drm nvidia_modeset nvidia' in d['findings'][0]['commands']" "the full unload order"
json_check "'${SUDO}systemctl stop nvidia-persistenced.service nvidia-fabricmanager.service nvidia-dcgm.service' in d['findings'][0]['commands']"
json_check 'min(i for i, c in enumerate(d["findings"][0]["commands"]) if "reboot" in c) < min(i for i, c in enumerate(d["findings"][0]["commands"]) if "rmmod" in c)' "reboot, the simple path, first"

run version-mismatch --no-color --wide
expect_out_contains "unload the modules in order (nvidia_peermem, nvidia_uvm, nvidia_drm, nvidia_modeset, nvidia)"
