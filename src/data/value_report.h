// --values over a whole scan: totals of NaN, Inf and all-zero tensors, and
// the files worth naming (non-finite values, zero tensors, all-zero data),
// for the data report's "values" section (render/data_render.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/problem.h"
#include "data/scan.h"

namespace gt {

struct ValueFile {
  std::string path;
  ValueSummary values;
};

struct ValueTotals {
  bool allow_non_finite = false;
  uint64_t files_counted = 0;      ///< files whose values were decoded
  uint64_t files_not_counted = 0;  ///< read, but of a format whose values are not decoded (gzip)
  uint64_t tensors = 0, elements = 0, nan = 0, pos_inf = 0, neg_inf = 0, zero_tensors = 0;
  uint64_t uncounted_tensors = 0;
  uint64_t files_non_finite = 0, files_all_zero = 0;
  std::vector<ValueFile> files;  ///< those with non-finite values or zero tensors
};

/// Adds up the per-file summaries of a --values scan.
ValueTotals total_values(const DirScan& scan, bool allow_non_finite);

}  // namespace gt
