// gpu-triage data: gzip-compressed torch files (.ckpt.gz).
#include "data_target.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(gzip) {
  gt::verify_both_modes(data, size, "data_0.ckpt.gz");
  return 0;
}
