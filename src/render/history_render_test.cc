#include "render/history_render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/golden.h"

namespace gt {
namespace history_render_test {

constexpr const char* kGpu3 = "GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98";
constexpr const char* kGpu5 = "GPU-1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b";

// Xid 79 on GPU 3 in three boots, a recovery action on GPU 5 in one, and a
// finding recorded under a boot the record has since dropped.
GpuHistory sample_history() {
  GpuHistory h;
  h.file = "/var/lib/gpu-triage/history.json";
  h.boot_id = "1d0c5e23-4f3a-4b6c-9d8e-7f6a5b4c3d2e";
  const char* boots[] = {"1d0c5e21-4f3a-4b6c-9d8e-7f6a5b4c3d2e",
                         "1d0c5e22-4f3a-4b6c-9d8e-7f6a5b4c3d2e",
                         "1d0c5e23-4f3a-4b6c-9d8e-7f6a5b4c3d2e"};
  int64_t t = 1767225600;  // 2026-01-01 00:00 UTC
  for (const char* b : boots) {
    h.boots.push_back({b, t, t + 5400});
    t += 86400;
  }
  Fingerprint& fp = h.boots.back().last_fingerprint.emplace();
  fp.taken_unix_s = t - 86400 + 5400;
  fp.gpus.resize(8);
  fp.driver.kernel_module_version = "590.48.01";
  fp.container =
      ContainerPrint{std::string(64, 'a'), std::nullopt, std::nullopt,
                     "docker.io/lmsysorg/sglang:latest", "9b1c0e2f3a4d" + std::string(52, '0')};
  fp.mounts = {{"/data", "/dev/vdb1", "vdb1", "ext4", std::nullopt}};
  fp.python = {{"/venv", {}, {{"sglang", "0.4.6", "/venv", {{"a.py", 1}, {"b.py", 2}}, true, {}}}}};
  h.gpus.push_back({kGpu3, {{"gpu.xid.79", {boots[0], boots[1], boots[2]}}}});
  h.gpus.push_back({kGpu5,
                    {{"gpu.recovery_action", {boots[2]}},
                     {"gpu.xid.48", {"0badb00t-dropped-from-the-record"}}}});
  return h;
}

TEST(HistoryRender, TextMatchesGolden) {
  expect_golden("history.txt", render_history_text(sample_history(), ""));
}

TEST(HistoryRender, OneGpuMatchesGolden) {
  expect_golden("history_gpu.txt", render_history_text(sample_history(), kGpu5));
}

TEST(HistoryRender, JsonMatchesGolden) {
  std::string doc = render_history_json(sample_history(), "");
  expect_golden("history.json", doc);
  nlohmann::json d = nlohmann::json::parse(doc);
  EXPECT_EQ(d["gpus"].size(), 2u);
  d = nlohmann::json::parse(render_history_json(sample_history(), kGpu3));
  ASSERT_EQ(d["gpus"].size(), 1u);
  EXPECT_EQ(d["boots"].size(), 3u);  // the boots stay: they date the GPU's findings
}

TEST(HistoryRender, EmptyAndUnknownGpuSaySo) {
  GpuHistory h;
  h.file = "/s/history.json";
  EXPECT_EQ(render_history_text(h, ""),
            "Record: /s/history.json (0 boots, at most 16 kept)\nNo GPU finding recorded.\n");
  std::string text = render_history_text(sample_history(), "GPU-none");
  const std::string want = "\nNothing recorded for GPU-none.\n";
  ASSERT_GE(text.size(), want.size());
  EXPECT_EQ(text.substr(text.size() - want.size()), want) << text;
}

TEST(HistoryRender, TheImageIdOfAFingerprintIsEscaped) {
  // A record is a file on the node: what it says is escaped before a terminal.
  GpuHistory h = sample_history();
  h.boots.back().last_fingerprint->container->image_id = std::string("\x1b[2J") + "abc";
  const std::string text = render_history_text(h, "");
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("(image "), std::string::npos) << text;
  h.boots.back().last_fingerprint->container->image_id.reset();
  EXPECT_EQ(render_history_text(h, "").find("(image "), std::string::npos);
}

TEST(HistoryRender, ClearSaysWhatWasCleared) {
  EXPECT_EQ(render_history_cleared("/s/h.json", "", 0), "Cleared the record in /s/h.json.\n");
  EXPECT_EQ(render_history_cleared("/s/h.json", kGpu3, 1),
            std::string("Cleared the record of ") + kGpu3 + " in /s/h.json.\n");
  EXPECT_EQ(render_history_cleared("/s/h.json", kGpu3, 0),
            std::string("Nothing recorded for ") + kGpu3 + " in /s/h.json.\n");
}

}  // namespace history_render_test
}  // namespace gt
