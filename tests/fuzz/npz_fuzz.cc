// gpu-triage data: NumPy .npz archives (zip members that are .npy files).
#include "data_target.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(npz) {
  gt::verify_both_modes(data, size, "sample_0.npz");
  return 0;
}
