// Numbers in nvidia-smi output that do not fit their field ("1e30 MiB",
// "inf W", "nan C") are unknown, never 0 or -2147483648 (a float cast out
// of range is undefined behaviour). The inputs are the files under
// tests/fuzz/regressions/smi_xml/ and smi_text/.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "render/table_report.h"
#include "report/json_report.h"
#include "sources/smi_xml/smi_text.h"
#include "sources/smi_xml/smi_xml_parser.h"
#include "util/numeric.h"

namespace gt {
namespace smi_out_of_range_test {

std::string regression(const std::string& target, const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fuzz/regressions/" + target + "/" + name,
                   std::ios::binary);
  if (!in) ADD_FAILURE() << "regression file missing: " << target << "/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has_error(const GpuState& g, const std::string& path) {
  for (const std::string& e : g.errors)
    if (e.starts_with(path + ": out of range")) return true;
  return false;
}

TEST(CheckedCast, RejectsNonFiniteAndOutOfRange) {
  EXPECT_EQ(checked_cast<int32_t>(66.7), 66);
  EXPECT_EQ(checked_cast<int32_t>(-2147483648.0), INT32_MIN);
  EXPECT_FALSE(checked_cast<int32_t>(2147483648.0));
  EXPECT_FALSE(checked_cast<int32_t>(-2147483649.0));
  EXPECT_FALSE(checked_cast<uint64_t>(18446744073709551616.0));
  EXPECT_EQ(checked_cast<uint64_t>(9223372036854775808.0), 9223372036854775808ull);
  EXPECT_FALSE(checked_cast<int64_t>(9223372036854775808.0));
  EXPECT_FALSE(checked_cast<uint32_t>(-1.0));
  for (double bad : {double(HUGE_VAL), -double(HUGE_VAL), double(NAN), 1e30, -1e30}) {
    EXPECT_FALSE(checked_cast<int32_t>(bad)) << bad;
    EXPECT_FALSE(checked_cast<uint64_t>(bad)) << bad;
    EXPECT_FALSE(checked_double(bad, 0, 1e5)) << bad;
  }
  EXPECT_FALSE(checked_cast<uint32_t>(101.0, 0, 100));
  EXPECT_EQ(parse_int<int>("42"), 42);
  EXPECT_FALSE(parse_int<int>("99999999999999999999"));
  EXPECT_FALSE(parse_int<int>("4x"));
}

TEST(SmiXmlOutOfRange, HugeInfiniteAndNanValuesAreUnknown) {
  Result<SmiXml> x = parse_smi_xml(regression("smi_xml", "huge-inf-nan-values.xml"));
  ASSERT_TRUE(x.ok()) << x.error().message;
  EXPECT_FALSE(x->dtd_version);  // v99999999999: not a version, and no stoi throw
  ASSERT_EQ(x->gpus.size(), 1u);
  const GpuState& g = x->gpus[0];
  EXPECT_FALSE(g.memory_total_bytes);  // 1e30 MiB
  EXPECT_FALSE(g.memory_used_bytes);   // inf MiB
  EXPECT_FALSE(g.memory_free_bytes);   // -1e30 MiB
  EXPECT_FALSE(g.memory_reserved_bytes);
  EXPECT_FALSE(g.utilization_gpu_pct);     // inf %
  EXPECT_FALSE(g.utilization_memory_pct);  // nan %
  EXPECT_FALSE(g.temperature_c);           // nan C
  EXPECT_FALSE(g.power_draw_w);            // -1e30 W
  EXPECT_FALSE(g.power_limit_w);           // 1e300 W
  EXPECT_FALSE(g.pstate);                  // P99999999999999999999
  EXPECT_FALSE(g.fan_speed_pct);           // 1e30 %
  EXPECT_FALSE(g.ecc.volatile_corrected);  // inf
  EXPECT_FALSE(g.ecc.volatile_uncorrected);
  EXPECT_FALSE(g.retired_pages.single_bit);  // 1e20
  EXPECT_FALSE(g.remapped_rows.correctable);
  EXPECT_FALSE(g.pcie.current_gen);
  EXPECT_FALSE(g.pcie.current_width);
  EXPECT_FALSE(g.pcie.replay_counter);
  EXPECT_TRUE(has_error(g, "fb_memory_usage/total"));
  EXPECT_TRUE(has_error(g, "temperature/gpu_temp"));
  EXPECT_TRUE(has_error(g, "power_readings/power_draw"));
  // The process whose PID is 1e30 is dropped; the one with a sane PID
  // keeps it, and its 1e30 MiB is unknown.
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 1u);
  EXPECT_EQ((*g.processes)[0].pid, 4242u);
  EXPECT_FALSE((*g.processes)[0].used_memory_bytes);
  EXPECT_FALSE((*g.processes)[0].gpu_instance_id);
}

TEST(SmiXmlOutOfRange, PlausibleValuesStillParse) {
  Result<SmiXml> x = parse_smi_xml(regression("smi_xml", "huge-inf-nan-values.xml"));
  ASSERT_TRUE(x.ok());
  const GpuState& g = x->gpus[0];
  EXPECT_EQ(g.pcie.max_gen, 4u);     // "4"
  EXPECT_EQ(g.pcie.max_width, 16u);  // "16x"
  EXPECT_EQ(g.ecc.aggregate_corrected, 7u);
}

TEST(SmiTextOutOfRange, ReportShowsNullNeverZeroOrIntMin) {
  NodeSnapshot snap;
  ASSERT_TRUE(
      fill_snapshot_from_smi_output(regression("smi_text", "huge-inf-nan-values.xml"), snap).ok());
  ASSERT_EQ(snap.gpus.size(), 1u);
  Report report;
  report.snapshot = snap;
  nlohmann::ordered_json j = report_to_json(report);
  const auto& g = j["gpus"][0];
  for (const char* key :
       {"/temperature/gpu_c", "/power/draw_w", "/power/limit_w", "/memory/total_bytes",
        "/memory/used_bytes", "/memory/free_bytes", "/fan/speed_pct", "/pstate"}) {
    nlohmann::ordered_json::json_pointer at(key);
    ASSERT_TRUE(g.contains(at)) << key;
    EXPECT_TRUE(g[at].is_null()) << key << " = " << g[at].dump();
  }
  std::ostringstream table;
  render_table(report, TableOptions{}, table);
  EXPECT_EQ(table.str().find("-2147483648"), std::string::npos) << table.str();
  EXPECT_EQ(table.str().find("2147483647"), std::string::npos) << table.str();
}

}  // namespace smi_out_of_range_test
}  // namespace gt
