// The pickle scan on its own (torch.save's data.pkl and legacy pickles):
// every start offset the verifiers use, plus the dtype lookup it feeds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "data/formats/pickle_scan.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(pickle) {
  std::string_view pickle(reinterpret_cast<const char*>(data), size);
  size_t end = 0;
  gt::PickleScan scan = gt::scan_pickle(pickle, 0, &end);
  (void)scan;
  if (size > 2) gt::scan_pickle(pickle, size / 2, &end);
  gt::torch_dtype_itemsize(pickle.substr(0, 32));
  return 0;
}
