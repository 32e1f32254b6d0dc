#include "data/value_report.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;

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

J file_json(const ValueFile& f) {
  const ValueSummary& v = f.values;
  return J{{"path", f.path},
           {"nan", v.nan},
           {"pos_inf", v.pos_inf},
           {"neg_inf", v.neg_inf},
           {"tensors", v.tensors},
           {"zero_tensors", v.zero_tensors},
           {"zero_tensor_names", v.zero_tensor_names},
           {"all_zero", v.all_zero()},
           {"uncounted_dtypes", v.uncounted_dtypes}};
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

J values_json(const ValueTotals& t) {
  J files = J::array();
  for (const ValueFile& f : t.files) files.push_back(file_json(f));
  return J{{"allow_non_finite", t.allow_non_finite},
           {"files_counted", t.files_counted},
           {"files_not_counted", t.files_not_counted},
           {"tensors", t.tensors},
           {"elements", t.elements},
           {"nan", t.nan},
           {"pos_inf", t.pos_inf},
           {"neg_inf", t.neg_inf},
           {"zero_tensors", t.zero_tensors},
           {"uncounted_tensors", t.uncounted_tensors},
           {"files_non_finite", t.files_non_finite},
           {"files_all_zero", t.files_all_zero},
           {"files", files}};
}

void render_values_text(const ValueTotals& t, std::ostream& out, size_t max_list) {
  out << "  values: " << t.elements << " float values in " << t.tensors << " tensors of "
      << t.files_counted << " files: " << t.nan << " NaN, " << t.pos_inf << " +Inf, " << t.neg_inf
      << " -Inf in " << t.files_non_finite << " files"
      << (t.allow_non_finite && t.files_non_finite ? " (allowed)" : "") << "; " << t.zero_tensors
      << " all-zero tensors";
  if (t.files_not_counted) out << "; " << t.files_not_counted << " files not decoded";
  if (t.uncounted_tensors) out << "; " << t.uncounted_tensors << " tensors of other dtypes";
  out << "\n";
  size_t shown = 0;
  for (const ValueFile& f : t.files) {
    // Not allowed, non-finite files are listed as bad; zero tensors: JSON only.
    bool nf = t.allow_non_finite && f.values.non_finite() > 0;
    if (!nf && !f.values.all_zero()) continue;
    if (max_list && shown++ == max_list) {
      out << "  ... more in --json\n";
      break;
    }
    const ValueSummary& v = f.values;
    if (nf)
      out << "  non-finite (allowed) " << f.path << ": " << v.nan << " NaN, " << v.pos_inf
          << " +Inf, " << v.neg_inf << " -Inf\n";
    if (v.all_zero())
      out << "  note: every float value of " << f.path << " is zero (" << v.tensors
          << " tensors)\n";
  }
}

}  // namespace gt
