// gpu-triage data: NumPy .npy files (magic, version, header dict, shape, dtype).
#include "data_target.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(npy) {
  gt::verify_both_modes(data, size, "hidden_0.npy");
  return 0;
}
