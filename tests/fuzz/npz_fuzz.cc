// gpu-triage data: NumPy .npz archives (zip members that are .npy files).
#include "data_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gt::verify_both_modes(data, size, "sample_0.npz");
  return 0;
}
