#include "render/bundle_manifest.h"

#include <gtest/gtest.h>

#include "report/bundle_manifest_read.h"

namespace gt {
namespace {

TEST(BundleManifest, TheCutsReadBackFromTheRenderedManifest) {
  BundleManifest m;
  m.tool_version = "0.1.0";
  m.cuts = {{"root/dev/kmsg", 1000, 9000, "the size cap"},
            {"journal/previous-boot.txt", 10, 20, "the size cap"}};
  EXPECT_EQ(manifest_cut_members(render_bundle_manifest(m)),
            (std::vector<std::string>{"root/dev/kmsg", "journal/previous-boot.txt"}));
  m.cuts.clear();
  EXPECT_TRUE(manifest_cut_members(render_bundle_manifest(m)).empty());
}

TEST(BundleManifest, AnUnreadableManifestHasNoCuts) {
  for (const char* text :
       {"", "{", "[]", R"({"cuts": 3})", R"({"cuts": [1, {"member": 2}]})",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]"})
    EXPECT_TRUE(manifest_cut_members(text).empty()) << text;
}

}  // namespace
}  // namespace gt
