#include "sources/nvml/nvml_fields.h"

#include <cmath>
#include <limits>
#include <string>

namespace gt {

std::optional<std::vector<nvmlFieldValue_t>> read_fields(NvmlCaller& c, nvmlDevice_t dev,
                                                         const std::vector<unsigned>& ids) {
  // Zeroed elements with only fieldId set, as the header asks.
  std::vector<nvmlFieldValue_t> values(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    values[i] = nvmlFieldValue_t{};
    values[i].fieldId = ids[i];
  }
  if (!c.call(c.api().field_values, dev, static_cast<int>(values.size()), values.data()))
    return std::nullopt;
  return values;
}

bool field_ok(NvmlCaller& c, const nvmlFieldValue_t& v) {
  nvmlReturn_t r = v.nvmlReturn;
  if (r == NVML_SUCCESS) return true;
  if (nvml_absent(r) || r == NVML_ERROR_INVALID_ARGUMENT) return false;
  const std::string what = "nvmlDeviceGetFieldValues(field " + std::to_string(v.fieldId) + ")";
  if (r == NVML_ERROR_GPU_IS_LOST) return c.check(what.c_str(), r);
  c.note_error(what, r);
  return false;
}

namespace {

std::optional<long double> field_number(const nvmlFieldValue_t& v) {
  switch (v.valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
      if (!std::isfinite(v.value.dVal)) return std::nullopt;
      return v.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return v.value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return v.value.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      return v.value.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
      return v.value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return v.value.usVal;
  }
  return std::nullopt;  // a type newer than this build: unknown, not 0
}

}  // namespace

std::optional<uint64_t> field_uint(const nvmlFieldValue_t& v) {
  // Integers are returned exactly; only a double goes through long double.
  switch (v.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return v.value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return v.value.ullVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return v.value.usVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      if (v.value.sllVal < 0) return std::nullopt;
      return static_cast<uint64_t>(v.value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT:
      if (v.value.siVal < 0) return std::nullopt;
      return static_cast<uint64_t>(v.value.siVal);
  }
  std::optional<long double> n = field_number(v);
  if (!n || *n < 0 || *n != std::floor(*n) ||
      *n > static_cast<long double>(std::numeric_limits<uint64_t>::max()))
    return std::nullopt;
  return static_cast<uint64_t>(*n);
}

std::optional<int64_t> field_int(const nvmlFieldValue_t& v) {
  if (v.valueType == NVML_VALUE_TYPE_SIGNED_LONG_LONG) return v.value.sllVal;
  if (v.valueType == NVML_VALUE_TYPE_SIGNED_INT) return v.value.siVal;
  if (v.valueType == NVML_VALUE_TYPE_DOUBLE) {
    std::optional<long double> n = field_number(v);
    if (!n || *n != std::floor(*n) || std::fabs(*n) > 9.2e18L) return std::nullopt;
    return static_cast<int64_t>(*n);
  }
  std::optional<uint64_t> u = field_uint(v);
  if (!u || *u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(*u);
}

}  // namespace gt
