#include "sources/smi_xml/smi_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "checks/registry.h"
#include "model/limits.h"

namespace gt {
namespace smi_text_test {

std::string text_fixture(const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fixtures/real/nvidia-smi-text/" + name);
  if (!in) ADD_FAILURE() << "fixture missing from tests/fixtures/real: " << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The ids of the findings the checks give for a snapshot from `text`.
std::set<std::string> ids_for(const std::string& text) {
  Report r;
  // As --smi-xml reads it (smi_capture.cc): a capture, its node's PCI bus
  // unread. (Through the fleet's gather the bus is read: fleet_test.cc.)
  r.snapshot.source = Origin::kCapture;
  EXPECT_TRUE(fill_snapshot_from_smi_output(text, r.snapshot).ok());
  judge(r, CheckOptions{});
  std::set<std::string> ids;
  for (const Finding& f : r.findings) ids.insert(f.id);
  return ids;
}

TEST(SmiText, VersionMismatchIsTheNvmlFinding) {
  std::string t = text_fixture("issue-tinygrad-ogkm47-error-driver-library-mismatch-570.txt");
  std::optional<SmiTextFailure> f = parse_smi_error_text(t);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->nvml.init_error, NvmlInitError::kVersionMismatch);
  EXPECT_EQ(f->nvml.library_version, "570.124");
  EXPECT_EQ(ids_for(t), std::set<std::string>{"nvml.version_mismatch"});
}

TEST(SmiText, NoDriverCommunicationIsDriverNotLoaded) {
  std::string t = text_fixture("issue-shinecluster50-error-no-driver-comm.txt");
  EXPECT_EQ(parse_smi_error_text(t)->nvml.init_error, NvmlInitError::kDriverNotLoaded);
  EXPECT_EQ(ids_for(t), std::set<std::string>{"nvml.driver_not_loaded"});
}

TEST(SmiText, GpuIsLost) {
  std::string t = text_fixture("issue-marian251-error-gpu-is-lost.txt");
  std::optional<SmiTextFailure> f = parse_smi_error_text(t);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->gpus.size(), 1u);
  EXPECT_EQ(f->gpus[0].status, GpuStatus::kLost);
  EXPECT_EQ(f->gpus[0].pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(ids_for(t), std::set<std::string>{"gpu.lost"});
}

TEST(SmiText, UnknownErrorWithoutSpaceIsInaccessible) {
  std::string t = text_fixture("issue-synonvidia22-error-unknown-error-nospace.txt");
  std::optional<SmiTextFailure> f = parse_smi_error_text(t);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->gpus.at(0).pci_bus_id, "0000:07:00.0");
  EXPECT_EQ(f->gpus.at(0).status, GpuStatus::kInaccessible);
  EXPECT_EQ(ids_for(t), std::set<std::string>{"gpu.inaccessible"});
}

TEST(SmiText, OtherInitFailuresAndNoDevices) {
  const NvmlStatus unknown =
      parse_smi_error_text("Failed to initialize NVML: Unknown Error\n")->nvml;
  EXPECT_EQ(unknown.init_error, NvmlInitError::kOtherNvmlError);
  EXPECT_EQ(unknown.init_return_name, "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(ids_for("Failed to initialize NVML: Unknown Error\n"),
            std::set<std::string>{"nvml.init_failed"});
  EXPECT_EQ(ids_for("Failed to initialize NVML: Insufficient Permissions\n"),
            std::set<std::string>{"nvml.no_permission"});
  EXPECT_EQ(parse_smi_error_text("No devices were found\n")->gpu_count, 0u);
}

TEST(SmiText, TablesAndGarbageAreNotErrors) {
  EXPECT_FALSE(parse_smi_error_text(text_fixture("gpud-h100-80gb-hbm3-x8-550.90.07.txt")));
  EXPECT_FALSE(parse_smi_error_text(""));
  NodeSnapshot s;
  EXPECT_FALSE(fill_snapshot_from_smi_output("hello", s).ok());
}

// Issue 32: one long line (a broken or hostile node's stdout) crashed the
// std::regex parsers (SIGSEGV from ~50 KB); the parse is linear and what
// it keeps of a line is capped.
TEST(SmiText, OneLongLineIsParsedAndClipped) {
  const std::string reason(1'000'000, 'x');
  std::optional<SmiTextFailure> f = parse_smi_error_text(
      "Unable to determine the device handle for GPU 0000:03:00.0: " + reason + "\n");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->gpus.size(), 1u);
  EXPECT_EQ(f->gpus[0].pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(f->gpus[0].status, GpuStatus::kInaccessible);
  EXPECT_LT(f->gpus[0].status_detail->size(), 600u);
  EXPECT_TRUE(f->gpus[0].status_detail->ends_with("more bytes)"));

  f = parse_smi_error_text("Failed to initialize NVML: Driver/library version mismatch\n" +
                           std::string(1'000'000, 'y') + "\nNVML library version: 570.124\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->nvml.library_version, "570.124");
  std::string dots;
  for (int i = 0; i < 500'000; ++i) dots += "5.";
  f = parse_smi_error_text(
      "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: " + dots);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->nvml.library_version, std::nullopt);  // not a version: never 1 MB of one
  f = parse_smi_error_text("Failed to initialize NVML: " + std::string(1'000'000, 'z'));
  EXPECT_LT(f->nvml.error_message->size(), 600u);
}

TEST(SmiText, TheBusIdIsReadAsTheRegexDid) {
  auto bus = [](const std::string& line) -> std::string {
    std::optional<SmiTextFailure> f =
        parse_smi_error_text("Unable to determine the device handle for GPU" + line + "\n");
    if (!f) return "none";
    return f->gpus.at(0).pci_bus_id.value_or("?") + "|" + f->gpus.at(0).status_detail.value_or("");
  };
  const std::string lead = "nvidia-smi: Unable to determine the device handle for GPU";
  EXPECT_EQ(bus(" 00000000:1A:00.0: GPU is lost"),
            "00000000:1A:00.0|" + lead + " 00000000:1A:00.0: GPU is lost");
  EXPECT_EQ(bus("0000:07:00.0:Unknown Error"),
            "0000:07:00.0|" + lead + "0000:07:00.0:Unknown Error");
  EXPECT_EQ(bus(" 0000:07:00.0:"), "0000:07:00.0|" + lead + " 0000:07:00.0:");
  EXPECT_EQ(bus(" 000:07:00.0: x"), "none");        // a domain of 3 hex digits
  EXPECT_EQ(bus(" 000000000:07:00.0: x"), "none");  // of 9
  EXPECT_EQ(bus(" 0000:7:00.0: x"), "none");
  EXPECT_EQ(bus(" 0000:07:00.00: x"), "none");
  EXPECT_EQ(bus(" 0000:07:00.0 x"), "none");
  EXPECT_EQ(bus("  0000:07:00.0: x"), "none");  // one optional blank, not two
  // The reason ends at the line (a "\r" too); each line names one GPU, and
  // a failure later on a line whose first mention is not one is found.
  std::optional<SmiTextFailure> f = parse_smi_error_text(
      "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost\r\n"
      "Unable to determine the device handle for GPU zz Unable to determine the device handle "
      "for GPU 0000:04:00.0: Unknown Error\n");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->gpus.size(), 2u);
  EXPECT_EQ(f->gpus[0].status_detail,
            "nvidia-smi: Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost");
  EXPECT_EQ(f->gpus[1].index, 1u);
  EXPECT_EQ(f->gpus[1].pci_bus_id, "0000:04:00.0");
}

TEST(SmiText, AtMostMaxGpusAreNamed) {
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost\n";
  EXPECT_EQ(parse_smi_error_text(text)->gpus.size(), size_t{kMaxGpus});
}

}  // namespace smi_text_test
}  // namespace gt
