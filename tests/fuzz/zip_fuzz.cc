// gpu-triage data: torch.save zip files (and the zip/zip64 reader under them).
#include "data_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gt::verify_both_modes(data, size, "data_0.pt");
  return 0;
}
