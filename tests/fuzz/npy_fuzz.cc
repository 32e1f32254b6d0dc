// gpu-triage data: NumPy .npy files (magic, version, header dict, shape, dtype).
#include "data_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gt::verify_both_modes(data, size, "hidden_0.npy");
  return 0;
}
