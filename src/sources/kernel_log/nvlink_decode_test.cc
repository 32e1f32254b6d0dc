// Xid 74 register words and the Xid 144-150 decode table (nvlink_decode.h),
// with the catalogue's examples and the NVLink5 fixture's lines.
#include "sources/kernel_log/nvlink_decode.h"

#include <gtest/gtest.h>

#include <string>

#include "sources/kernel_log/kernel_log_test_util.h"

namespace gt {
namespace nvlink_decode_test {

using klog::decode_xid;
using klog::Decoded;

std::string get(const Decoded& d, const std::string& name) {
  for (const auto& [k, v] : d)
    if (k == name) return v;
  return "<absent>";
}

TEST(NvlinkDecode, Xid74LinkAndASingleRegisterBit) {
  // REG0 (word 1) bit 4: ECC/parity.
  Decoded d =
      decode_xid(74, "NVLink: fatal error detected on link 14(0x0, 0x10, 0x0, 0x0, 0x0, 0x0, 0x0)");
  EXPECT_EQ(d, (Decoded{{"link", "14"}, {"reg0_bits", "4"}, {"reading", "ecc-parity"}}));
  // REG4 (word 5) bit 20: ECC threshold crossed.
  d = decode_xid(74,
                 "NVLink: fatal error detected on link 3(0x0, 0x0, 0x0, 0x0, 0x0, 0x100000, 0x0)");
  EXPECT_EQ(get(d, "reg4_bits"), "20");
  EXPECT_EQ(get(d, "reading"), "ecc-threshold");
}

TEST(NvlinkDecode, Xid74UnlistedAndMultipleBits) {
  // The catalogue's own example: word 2 (not a register valid for analysis), bit 16.
  Decoded d = decode_xid(
      74, "NVLink: fatal error detected on link 14(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)");
  EXPECT_EQ(d, (Decoded{{"link", "14"}, {"word2_bits", "16"}, {"reading", "unlisted-bit"}}));
  d = decode_xid(74, "NVLink: fatal error detected on link 1(0x0, 0x30, 0x0, 0x0, 0x0, 0x0, 0x0)");
  EXPECT_EQ(get(d, "reg0_bits"), "4,5");
  EXPECT_EQ(get(d, "reading"), "<absent>");  // several bits: no single reading
}

TEST(NvlinkDecode, Xid74OtherWordCountsGiveOnlyTheLink) {
  EXPECT_EQ(decode_xid(74, "NVLink: fatal error detected on link 2(0x0, 0x10)"),
            (Decoded{{"link", "2"}}));
  EXPECT_TRUE(decode_xid(74, "NVLink: something else").empty());
}

TEST(NvlinkDecode, Nvlink5RxpipeIgnoreStatus) {
  Decoded d = decode_xid(145,
                         "RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 "
                         "0x00000001 0x00000000 0x00100000 0x00000004)");
  EXPECT_EQ(d, (Decoded{{"unit", "RLW_RXPIPE"},
                        {"severity", "Nonfatal"},
                        {"containment", "XC0"},
                        {"injected", "i0"},
                        {"link", "13"},
                        {"intrinfo", "0x0409a0c2"},
                        {"error_status", "0x00000008"},
                        {"subcode", "0"},
                        {"table_unit", "RLW_RXPIPE"},
                        {"layout", "V1"},
                        {"status_class", "ignore"}}));
}

TEST(NvlinkDecode, Nvlink5LinkDownSubcode) {
  Decoded d = decode_xid(149,
                         "NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 "
                         "0x00000000 0x00000000 0x00000000 0x00000000)");
  EXPECT_EQ(get(d, "subcode"), "37");
  EXPECT_EQ(get(d, "table_unit"), "NETIR_LINK_EVT");
  EXPECT_EQ(get(d, "status_class"), "link-fatal");
  EXPECT_EQ(get(d, "subcode_reading"), "peer-device");
  EXPECT_EQ(get(d, "link"), "0");
}

TEST(NvlinkDecode, Nvlink5V2LayoutAndShortUnitName) {
  // V2 (R580+): SAW_MVB is 0x01 in the low 7 bits; status 0x8 is IGNORE.
  Decoded d = decode_xid(144,
                         "SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 "
                         "0x00000000 0x00000000 0x00000000)");
  EXPECT_EQ(get(d, "layout"), "V2");
  EXPECT_EQ(get(d, "status_class"), "ignore");
  // "NETIR" printed for NETIR_INT (low 10 bits 0x006), link -1.
  d = decode_xid(149,
                 "NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 "
                 "0x00000000 0x00000000)");
  EXPECT_EQ(get(d, "link"), "-1");
  EXPECT_EQ(get(d, "table_unit"), "NETIR_INT");
  EXPECT_EQ(get(d, "status_class"), "link-fatal");
}

TEST(NvlinkDecode, Nvlink5UnitMismatchKeepsOnlyThePrintedFields) {
  // The intrinfo says RLW_RXPIPE but the line says TREX: no table row.
  Decoded d = decode_xid(145, "TREX Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008)");
  EXPECT_EQ(get(d, "unit"), "TREX");
  EXPECT_EQ(get(d, "table_unit"), "<absent>");
  EXPECT_TRUE(decode_xid(145, "RLW_RXPIPE Sometimes XC0 i0 Link 13 (0x0 0x0)").empty());
  EXPECT_TRUE(decode_xid(145, "RLW_RXPIPE Fatal XC0 i0 Link 13 (0x0)").empty());
}

TEST(NvlinkDecode, TheFixtureLinesAreDecoded) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-gpud1160-1174-nvlink5-xid144-149.log");
  ASSERT_EQ(got.events.size(), 4u);
  for (const KernelLogEvent& e : got.events) {
    SCOPED_TRACE(e.line);
    EXPECT_NE(get(e.decoded, "table_unit"), "<absent>");
  }
  EXPECT_EQ(get(got.events[1].decoded, "subcode"), "38");  // first 149 line: 0x026001c6
  EXPECT_EQ(get(got.events[1].decoded, "subcode_reading"), "ignore");
}

}  // namespace nvlink_decode_test
}  // namespace gt
