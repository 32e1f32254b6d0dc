// Field values: decoding by valueType, and per-element status through the
// mock.
#include "sources/nvml/nvml_fields.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_fields_test {

using testing_nvml::bare_device;
/// One suite per file: gtest wants one fixture class per suite name.
class FieldsMock : public testing_nvml::MockNvml {};
using testing_nvml::scenario_on;

nvmlFieldValue_t typed(int type) {
  nvmlFieldValue_t v{};
  v.valueType = type;
  return v;
}

TEST(NvmlFields, DecodesEveryValueType) {
  nvmlFieldValue_t v = typed(NVML_VALUE_TYPE_UNSIGNED_INT);
  v.value.uiVal = 7;
  EXPECT_EQ(field_uint(v), 7u);
  v = typed(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
  v.value.ullVal = 1ull << 60;
  EXPECT_EQ(field_uint(v), 1ull << 60);
  v = typed(NVML_VALUE_TYPE_UNSIGNED_SHORT);
  v.value.usVal = 44;
  EXPECT_EQ(field_int(v), 44);
  v = typed(NVML_VALUE_TYPE_SIGNED_INT);
  v.value.siVal = -3;
  EXPECT_EQ(field_int(v), -3);
  EXPECT_FALSE(field_uint(v));  // negative: no unsigned reading
  v = typed(NVML_VALUE_TYPE_SIGNED_LONG_LONG);
  v.value.sllVal = 9;
  EXPECT_EQ(field_uint(v), 9u);
  v = typed(NVML_VALUE_TYPE_DOUBLE);
  v.value.dVal = 2.0;
  EXPECT_EQ(field_uint(v), 2u);
  v.value.dVal = 2.5;
  EXPECT_FALSE(field_uint(v));  // not an integer
  v = typed(NVML_VALUE_TYPE_UNSIGNED_LONG);
  v.value.ulVal = 12;
  EXPECT_EQ(field_uint(v), 12u);
  v = typed(42);  // a type newer than this build
  v.value.ullVal = 1;
  EXPECT_FALSE(field_uint(v));
  EXPECT_FALSE(field_int(v));
}

TEST_F(FieldsMock, FieldsOfAnyTypeAndPerElementErrors) {
  // 230 as a double, 82 failing on its own with UNKNOWN: the call succeeds,
  // the action is read and only the failing element is recorded.
  NodeSnapshot s = collect(scenario_on(
      bare_device(R"(, "fields": {"230": {"type": "double", "value": 1}, "82": "UNKNOWN"})")));
  ASSERT_EQ(s.gpus.size(), 1u);
  const GpuState& g = s.gpus[0];
  EXPECT_EQ(g.recovery.action, RecoveryAction::kGpuReset);
  EXPECT_EQ(g.recovery.action_code, 1u);
  EXPECT_FALSE(g.thermal.memory_temperature_c);
  ASSERT_EQ(g.errors.size(), 1u);
  EXPECT_EQ(g.errors[0], "nvmlDeviceGetFieldValues(field 82): NVML_ERROR_UNKNOWN");
}

}  // namespace nvml_fields_test
}  // namespace gt
