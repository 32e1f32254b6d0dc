# The libcuda a job would load, judged against the kernel module (issue 34
# item 1), over every scenario: the story's container libraries (565.57.01
# under a 590.48.01 module) are the one 803 finding, named with the file and
# fixed in the plan before the servers are freed and the job resumed (and
# NVML's own split is no second finding); cuda-compat-12-8 ahead of the
# driver is allowed on H100s and 804 on an RTX 4090.
source "$(dirname "$0")/common.sh"

# Every scenario's readiness findings, item 1's among them, are checked in one
# place: e2e.cuda_node_readiness (tests/e2e/cuda_node_readiness.sh).

run story --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "cuda.driver_mismatch"][0]'
json_check "$f['severity'] == 'critical' and 'cuInit 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH' in $f['title']"
json_check "'/usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01 under kernel module 590.48.01' in $f['title']"
json_check "'/usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01' in $f['evidence'] and 'libcuda.so.590.48.01' in $f['evidence']"
json_check "not any(f['id'] == 'driver.version_split' for f in d['findings'])" "one cause, one finding"
json_check "any('nvidia-ctk cdi generate' in c for c in $f['commands'])"
# The plan: the 803 step comes before every server step (freeing GPUs for the resume).
json_check "[i for i, p in enumerate(d['plan']) if 'cuda.driver_mismatch' in p['finding_ids']][0] < min([i for i, p in enumerate(d['plan']) if 'memory.held_idle' in p['finding_ids']] + [99])" \
  "the 803 step before the server steps"
loaders='d["cuda"]["loaders"]'
json_check "len($loaders) == 1 and $loaders[0]['libraries'][0]['version_from'] == 'file name'"
json_check "d['cuda']['notes'] == []" "every GPU process's environment read"

run cuda-compat-rtx --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "cuda.compat_unsupported"][0]'
json_check "'cuInit 804 CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE' in $f['title'] and 'GeForce RTX 4090' in $f['title']"
json_check "'${SUDO}rm /etc/ld.so.conf.d/000-cuda-compat.conf' in $f['commands'] and '${SUDO}ldconfig' in $f['commands']"
lib='d["cuda"]["loaders"][0]["libraries"][0]'
json_check "$lib['found_via'] == '/etc/ld.so.cache' and $lib['conf_file'] == '/etc/ld.so.conf.d/000-cuda-compat.conf' and $lib['compat']"
json_check "$lib['file'] == '/usr/local/cuda-12.8/compat/libcuda.so.570.124.06' and $lib['version'] == '570.124.06'"

run cuda-compat-datacenter --json --sample 0 --no-state
json_check "d['cuda']['loaders'][0]['libraries'][0]['version'] == '570.124.06'" "compat lib read on H100"
echo "PASS: the story's 803 and the compat libraries"
