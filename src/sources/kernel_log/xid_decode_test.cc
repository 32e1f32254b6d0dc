// Xid 13, 31 and 154 payloads (xid_decode.h), from the forms the catalogue
// quotes; unknown forms decode to nothing.
#include "sources/kernel_log/xid_decode.h"

#include <gtest/gtest.h>

#include "sources/kernel_log/kernel_log_test_util.h"

namespace gt {
namespace xid_decode_test {

using klog::decode_xid;
using klog::Decoded;

TEST(XidDecode, Xid13WarpExceptionWithLocation) {
  EXPECT_EQ(
      decode_xid(13, "Graphics SM Warp Exception on (GPC 8, TPC 5, SM 0): Out Of Range Address"),
      (Decoded{{"engine", "Graphics"},
               {"exception", "SM Warp Exception"},
               {"gpc", "8"},
               {"tpc", "5"},
               {"sm", "0"},
               {"error", "Out Of Range Address"}}));
  Decoded global =
      decode_xid(13, "Graphics SM Global Exception on (GPC 7, TPC 4, SM 1): Multiple Warp Errors");
  ASSERT_EQ(global.size(), 6u);
  EXPECT_EQ(global[1].second, "SM Global Exception");
  EXPECT_EQ(global[5].second, "Multiple Warp Errors");
}

TEST(XidDecode, Xid13EsrAndChannelForms) {
  EXPECT_EQ(decode_xid(13, "Graphics Exception: ESR 0x50472c=0x107"),
            (Decoded{{"engine", "Graphics"},
                     {"exception", "Exception"},
                     {"esr_register", "0x50472c"},
                     {"esr_value", "0x107"}}));
  EXPECT_EQ(decode_xid(13,
                       "Graphics Exception: ChID 000c, Class 0000cbc0, Offset 00000000, "
                       "Data 00000000"),
            (Decoded{{"engine", "Graphics"},
                     {"exception", "Exception"},
                     {"channel", "000c"},
                     {"class", "0000cbc0"},
                     {"offset", "00000000"},
                     {"data", "00000000"}}));
}

TEST(XidDecode, Xid13UnknownFormsGiveNothing) {
  EXPECT_TRUE(decode_xid(13, "Graphics Exception: Class 0x0 Subchannel 0x0 Mismatch").empty());
  EXPECT_TRUE(decode_xid(13, "Graphics SM Warp Exception on (GPC x, TPC 5): Oops").empty());
  EXPECT_TRUE(decode_xid(13, "something else").empty());
}

TEST(XidDecode, Xid31CurrentForm) {
  EXPECT_EQ(decode_xid(31,
                       "channel 0x0000000c, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 "
                       "GPCCLIENT_PROP_0 faulted @ 0x0_00000000. Fault is of type FAULT_PDE "
                       "ACCESS_TYPE_VIRT_READ"),
            (Decoded{{"channel", "0x0000000c"},
                     {"intr", "00000000"},
                     {"engine", "GRAPHICS"},
                     {"gpc", "2"},
                     {"client", "GPCCLIENT_PROP_0"},
                     {"address", "0x0_00000000"},
                     {"fault_type", "FAULT_PDE"},
                     {"access_type", "ACCESS_TYPE_VIRT_READ"}}));
}

TEST(XidDecode, Xid31OlderForms) {
  EXPECT_EQ(decode_xid(31,
                       "Ch 0000005a, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_1 "
                       "faulted @ 0x6f17_04027000. Fault is of type FAULT_PTE "
                       "ACCESS_TYPE_READ"),
            (Decoded{{"channel", "0000005a"},
                     {"intr", "10000000"},
                     {"engine", "GRAPHICS"},
                     {"client", "GPCCLIENT_T1_1"},
                     {"address", "0x6f17_04027000"},
                     {"fault_type", "FAULT_PTE"},
                     {"access_type", "ACCESS_TYPE_READ"}}));
  EXPECT_EQ(decode_xid(31, "Ch 00000003, engmask 00000101, intr 10000000"),
            (Decoded{{"channel", "00000003"}, {"engmask", "00000101"}, {"intr", "10000000"}}));
  EXPECT_TRUE(decode_xid(31, "something new").empty());
}

TEST(XidDecode, Xid154NamesTheAction) {
  EXPECT_EQ(
      decode_xid(154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"),
      (Decoded{{"from", "0x0"},
               {"from_name", "None"},
               {"action", "0x1"},
               {"action_name", "GPU Reset Required"}}));
  Decoded reboot = decode_xid(154,
                              "GPU recovery action changed from 0x1 (GPU Reset Required) to "
                              "0x2 (Node Reboot Required)");
  ASSERT_EQ(reboot.size(), 4u);
  EXPECT_EQ(reboot[2].second, "0x2");
  EXPECT_TRUE(decode_xid(154, "GPU recovery action changed").empty());
}

TEST(XidDecode, OtherCodesAreNotDecoded) {
  EXPECT_TRUE(decode_xid(48, "An uncorrectable double bit error (DBE)").empty());
  EXPECT_TRUE(decode_xid(79, "GPU has fallen off the bus.").empty());
}

TEST(XidDecode, TheParserDecodesTheFixtureLines) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("gpud-xid13-43-sm-exception-dmesg-decode.log");
  ASSERT_FALSE(got.events.empty());
  EXPECT_EQ(got.events[0].decoded, (Decoded{{"engine", "Graphics"},
                                            {"exception", "SM Warp Exception"},
                                            {"gpc", "8"},
                                            {"tpc", "5"},
                                            {"sm", "0"},
                                            {"error", "Out Of Range Address"}}));
  EXPECT_TRUE(got.events[1].decoded.empty());  // Xid 43: not decoded
}

}  // namespace xid_decode_test
}  // namespace gt
