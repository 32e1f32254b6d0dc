// gpu-triage data: gzip-compressed torch files (.ckpt.gz).
#include "data_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gt::verify_both_modes(data, size, "data_0.ckpt.gz");
  return 0;
}
