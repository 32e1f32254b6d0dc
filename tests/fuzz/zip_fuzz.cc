// gpu-triage data: torch.save zip files (and the zip/zip64 reader under them).
#include "data_target.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(zip) {
  gt::verify_both_modes(data, size, "data_0.pt");
  return 0;
}
