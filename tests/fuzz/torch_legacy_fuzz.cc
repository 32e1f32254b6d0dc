// gpu-triage data: legacy (pre-1.6, non-zip) torch.save files: pickles then raw storages.
#include "data_target.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(torch_legacy) {
  gt::verify_both_modes(data, size, "data_0.ckpt");
  return 0;
}
