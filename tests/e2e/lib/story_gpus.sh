# story_gpus_scenario FILE NVML_VERSION: the story's 8 GPUs (RTX PRO 6000
# Blackwell, the 590 module) as a mock NVML scenario, GPU i held by the PID
# in $Wi (72290 MiB, as SGLang's scheduler of rank i holds it), written to FILE.
story_gpus_scenario() {
  local devs="" i
  for i in $(seq 0 7); do
    devs+="${devs:+,}{\"name\": \"NVIDIA RTX PRO 6000 Blackwell Server Edition\", \"uuid\": \"GPU-$i\",
      \"pci\": {\"bus_id\": \"00000000:$(printf %02X $((0x18 + i))):00.0\", \"device_id\": \"0x2BB510DE\"},
      \"memory\": {\"total_mib\": 97887, \"reserved_mib\": 637, \"used_mib\": 0},
      \"utilization\": {\"gpu\": [0], \"memory\": [0]},
      \"processes\": [{\"pid_env\": \"W$i\", \"used_mib\": 72290, \"type\": \"compute\"}]}"
  done
  printf '{"driver_version": "590.48.01", "nvml_version": "%s", "cuda_driver_version": 13010,\n "devices": [%s]}\n' \
    "$2" "$devs" >"$1"
}
