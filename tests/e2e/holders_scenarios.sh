# Holders as servers on the scenarios built for them: a desktop GPU raises no
# idle-server finding; two vLLM TP=4 servers are two servers, one finding
# each; a Docker container with a restart policy is stopped through Docker.
source "$(dirname "$0")/common.sh"

run desktop-gpu --json --sample 400ms
json_check 'not any(f["id"].startswith("memory.") for f in d["findings"])' "desktop: no memory finding"
json_check 'sorted(s["kind"] for s in d["servers"] if s["graphics_only"]) == ["Xorg", "code", "firefox-esr", "gnome-shell"]' "graphics processes are graphics-only servers"
json_check '[s["gpus"][0]["memory_bytes"] for s in d["servers"] if s["kind"] == "unknown (notebook_cell.py)"] == [310 * 2**20]' "the notebook named by its program, not python3"

run two-vllm-tp4 --json --sample 400ms
json_check 'len(d["servers"]) == 2 and all(s["kind"] == "vLLM" and s["tensor_parallel"] == 4 and len(s["members"]) == 4 for s in d["servers"])' "two vLLM servers of 4"
json_check '[[g["index"] for g in s["gpus"]] for s in d["servers"]] == [[0, 1, 2, 3], [4, 5, 6, 7]]'
json_check '[s["port"] for s in d["servers"]] == [8000, 8001] and d["servers"][1]["model"] == "Qwen/Qwen2.5-72B-Instruct"'
json_check '[f["subject"]["server_id"] for f in d["findings"] if f["id"] == "memory.held_idle"] == ["pid-5100", "pid-5200"]' "one finding per server"
json_check "[p['commands'][0] for p in d['plan'] if 'memory.held_idle' in p['finding_ids']] == ['${SUDO}systemctl stop vllm-llama.service', '${SUDO}systemctl stop vllm-qwen.service']"

run docker-restart --json --sample 400ms
json_check 'len(d["servers"]) == 1 and d["servers"][0]["kind"] == "TGI" and d["servers"][0]["root_pid"] == 6100' "the launcher below tini is the root"
json_check 'd["servers"][0]["restart_policy"] == "Docker restart policy always" and d["servers"][0]["restarts_when_signalled"]'
json_check '[f["commands"] for f in d["findings"] if f["id"] == "memory.held_idle"] == [["docker stop 4f2a9c1e7b3d", "docker update --restart=no 4f2a9c1e7b3d"]]' "stopped through Docker"
# free plans the same, through the owner, and --signal is what forces a signal.
run docker-restart free --sample 0 --include-busy --json
json_check 'd["targets"][0]["via_owner"] and d["targets"][0]["commands"] == ["docker stop 4f2a9c1e7b3d", "docker update --restart=no 4f2a9c1e7b3d"]'
run docker-restart free --sample 0 --include-busy --json --signal
json_check 'not d["targets"][0]["via_owner"] and d["targets"][0]["signal_pids"] == [6100]'
