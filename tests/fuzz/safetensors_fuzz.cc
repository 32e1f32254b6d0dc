// gpu-triage data: safetensors files (the JSON header, offsets, dtypes).
#include "data_target.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(safetensors) {
  gt::verify_both_modes(data, size, "sample_0.safetensors");
  return 0;
}
