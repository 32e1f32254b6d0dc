// gpu-triage data: legacy (pre-1.6, non-zip) torch.save files: pickles then raw storages.
#include "data_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gt::verify_both_modes(data, size, "data_0.ckpt");
  return 0;
}
