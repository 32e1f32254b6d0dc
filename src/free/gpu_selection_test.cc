// --gpus as nvidia-smi -i takes it: indices, UUIDs, PCI bus ids.
#include "free/gpu_selection.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

NodeSnapshot node() {
  NodeSnapshot s;
  for (uint32_t i = 0; i < 4; ++i) {
    GpuState g;
    g.index = i;
    g.uuid = "GPU-5b1c0de" + std::to_string(i) + "-77aa-4f00-9e11-000000000000";
    g.pci_bus_id = "00000000:" + std::string(1, "1A1B1C1D"[2 * i]) +
                   std::string(1, "1A1B1C1D"[2 * i + 1]) + ":00.0";
    s.gpus.push_back(g);
  }
  return s;
}

std::vector<uint32_t> pick(const std::string& text) {
  Result<std::optional<GpuSelector>> sel = parse_gpu_selector(text);
  EXPECT_TRUE(sel.ok()) << text;
  Result<std::optional<std::vector<uint32_t>>> r = resolve_gpu_selector(*sel, node());
  EXPECT_TRUE(r.ok()) << text;
  return r && *r ? **r : std::vector<uint32_t>{};
}

TEST(GpuSelection, UuidsAndBusIdsSelectTheSameGpuAsItsIndex) {
  EXPECT_EQ(pick("2"), std::vector<uint32_t>{2});
  for (const char* same :
       {"GPU-5b1c0de2-77aa-4f00-9e11-000000000000", "gpu-5B1C0DE2-77AA-4F00-9E11-000000000000",
        "0000:1C:00.0", "00000000:1c:00.0", "1C:00.0"})
    EXPECT_EQ(pick(same), std::vector<uint32_t>{2}) << same;
  EXPECT_EQ(pick("0,GPU-5b1c0de3-77aa-4f00-9e11-000000000000,0000:1A:00.0"),
            (std::vector<uint32_t>{0, 3}));
  EXPECT_FALSE(parse_gpu_selector("all")->has_value());
}

TEST(GpuSelection, WhatNoGpuMatchesIsNamed) {
  Result<std::optional<GpuSelector>> sel = parse_gpu_selector("GPU-ffff");
  ASSERT_TRUE(sel.ok());
  Result<std::optional<std::vector<uint32_t>>> r = resolve_gpu_selector(*sel, node());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("GPU-ffff"), std::string::npos);
  EXPECT_FALSE(resolve_gpu_selector(*parse_gpu_selector("0000:99:00.0"), node()).ok());
  for (const char* bad : {"", "x", "GPU-", "1-", "0,,1", "4294967295", "zz:00.0"})
    EXPECT_FALSE(parse_gpu_selector(bad).ok()) << bad;
}

}  // namespace
}  // namespace gt
