#include "data/value_report.h"

namespace gt {
namespace {

void add_file(ValueTotals& t, const std::string& path, const ValueSummary& v) {
  ++t.files_counted;
  t.tensors += v.tensors;
  t.elements += v.elements;
  t.nan += v.nan;
  t.pos_inf += v.pos_inf;
  t.neg_inf += v.neg_inf;
  t.zero_tensors += v.zero_tensors;
  t.uncounted_tensors += v.uncounted_tensors;
  t.files_non_finite += v.non_finite() > 0;
  t.files_all_zero += v.all_zero();
  if (v.non_finite() > 0 || v.zero_tensors > 0) t.files.push_back({path, v});
}

}  // namespace

ValueTotals total_values(const DirScan& scan, bool allow_non_finite) {
  ValueTotals t;
  t.allow_non_finite = allow_non_finite;
  for (const ScannedFile& f : scan.files) {
    if (f.extra && f.extra->values)
      add_file(t, scan.path(f), *f.extra->values);
    else
      ++t.files_not_counted;
  }
  return t;
}

}  // namespace gt
