# The libcuda a job would load, judged against the kernel module (issue 34
# item 1, physics of issue 46): an image's cuda-compat-12-4 (libcuda
# 550.54.15) first in the loader's cache under a 570.124.04 module is the one
# 803 finding (a compat library older than the driver: docs/physics.md R2),
# named with the file and fixed in the plan; cuda-compat-12-8 ahead of the
# driver is allowed on H100s and 804 on an RTX 4090. The story (590
# throughout, 8 live CUDA processes) predicts no CUDA failure at all.
source "$(dirname "$0")/common.sh"

# Every scenario's readiness findings, item 1's among them, are checked in one
# place: e2e.cuda_node_readiness (tests/e2e/cuda_node_readiness.sh).

run cuda-compat-older --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "cuda.driver_mismatch"][0]'
json_check "$f['severity'] == 'critical' and 'cuInit 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH' in $f['title']"
json_check "'/usr/local/cuda-12.4/compat/libcuda.so.550.54.15 under kernel module 570.124.04' in $f['title']"
json_check "'/usr/local/cuda-12.4/compat/libcuda.so.550.54.15' in $f['evidence'] and 'libcuda.so.570.124.04' in $f['evidence']"
json_check "not any(f['id'].startswith('driver.') for f in d['findings'])" "NVML answers at the module's release: no driver finding"
json_check "'${SUDO}rm /etc/ld.so.conf.d/000-cuda-compat.conf' in $f['commands']"
json_check "[p['finding_ids'] for p in d['plan']] == [['cuda.driver_mismatch']]"
loaders='d["cuda"]["loaders"]'
json_check "len($loaders) == 1 and $loaders[0]['libraries'][0]['version_from'] == 'file name'"
json_check "d['cuda']['notes'] == []"

run story --json --sample 0 --no-state
json_check "not any(f['id'].startswith('cuda.') or f['id'] in ('driver.version_contradiction', 'driver.libraries_replaced') for f in d['findings'])" \
  "no CUDA failure beside eight live CUDA processes"
json_check "d['cuda']['notes'] == []" "every GPU process's environment read"

run cuda-compat-rtx --json --sample 0 --no-state
f='[f for f in d["findings"] if f["id"] == "cuda.compat_unsupported"][0]'
json_check "'cuInit 804 CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE' in $f['title'] and 'GeForce RTX 4090' in $f['title']"
json_check "'${SUDO}rm /etc/ld.so.conf.d/000-cuda-compat.conf' in $f['commands'] and '${SUDO}ldconfig' in $f['commands']"
lib='d["cuda"]["loaders"][0]["libraries"][0]'
json_check "$lib['found_via'] == '/etc/ld.so.cache' and $lib['conf_file'] == '/etc/ld.so.conf.d/000-cuda-compat.conf' and $lib['compat']"
json_check "$lib['file'] == '/usr/local/cuda-12.8/compat/libcuda.so.570.124.06' and $lib['version'] == '570.124.06'"

# The probe meets the same library: the mock libcuda is the tree's compat
# one, and cuInit gives 804 on the GeForce (docs/physics.md R2).
run cuda-compat-rtx cuda --include-busy --memory 64M --json
json_check 'd["init_error"] == 804 and d["library_version"] == "570.124.06"' "the probe's 804"

run cuda-compat-datacenter --json --sample 0 --no-state
json_check "d['cuda']['loaders'][0]['libraries'][0]['version'] == '570.124.06'" "compat lib read on H100"
echo "PASS: the older compat 803, the story without one, and the compat libraries"
