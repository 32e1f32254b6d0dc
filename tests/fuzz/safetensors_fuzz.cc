// gpu-triage data: safetensors files (the JSON header, offsets, dtypes).
#include "data_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gt::verify_both_modes(data, size, "sample_0.safetensors");
  return 0;
}
