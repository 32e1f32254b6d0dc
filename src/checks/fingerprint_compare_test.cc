// The one comparison of two fingerprints: each kind of change, and a value
// unknown on either side never a change.
#include "checks/fingerprint_compare.h"

#include <gtest/gtest.h>

#include "checks/test_fingerprint.h"

namespace gt {
namespace fingerprint_compare_test {

const std::string kOld = kStoryOldContainer;
const std::string kNew = kStoryNewContainer;

/// The story before the crash (checks/test_fingerprint.h).
Fingerprint before() { return story_fingerprint(); }

std::vector<std::string> kinds(const std::vector<FingerprintChange>& changes) {
  std::vector<std::string> out;
  for (const FingerprintChange& c : changes) out.push_back(fingerprint_change_kind_name(c.kind));
  return out;
}

/// "item: before -> after", one a change.
std::vector<std::string> said(const std::vector<FingerprintChange>& changes) {
  std::vector<std::string> out;
  for (const FingerprintChange& c : changes)
    out.push_back(c.item + ": " + c.before + " -> " + c.after);
  return out;
}

TEST(FingerprintCompare, TheSameFingerprintHasNoChange) {
  EXPECT_TRUE(compare_fingerprints(before(), before()).empty());
}

TEST(FingerprintCompare, ContainerRecreatedWithItsCreation) {
  Fingerprint now = before();
  now.container = ContainerPrint{kNew, 1767226000, "/proc/self/cgroup"};
  std::vector<FingerprintChange> c = compare_fingerprints(before(), now);
  ASSERT_EQ(kinds(c), std::vector<std::string>{"container_recreated"});
  EXPECT_EQ(c[0].item, "container");
  EXPECT_EQ(c[0].before, kOld);
  EXPECT_EQ(c[0].after, kNew);
  EXPECT_EQ(c[0].created_unix_s, 1767226000);
}

TEST(FingerprintCompare, EachFateOfAPatch) {
  Fingerprint now = before();
  now.python[0].packages[0].modified.clear();  // pristine
  std::vector<FingerprintChange> c = compare_fingerprints(before(), now);
  ASSERT_EQ(kinds(c), std::vector<std::string>{"patch_gone"});
  EXPECT_EQ(c[0].item, "sglang");
  EXPECT_EQ(c[0].before,
            "0.4.6 with 2 locally modified files (sglang/srt/model_executor/model_runner.py, "
            "sglang/srt/layers/logits_processor.py)");
  EXPECT_EQ(c[0].after, "matches its wheel");
  EXPECT_EQ(c[0].fate, PatchFate::kPristine);
  ASSERT_TRUE(c[0].package_before);
  EXPECT_EQ(c[0].package_before->modified.size(), 2u);

  now.python[0].packages[0].version = "0.4.7";  // another version: a version change too
  c = compare_fingerprints(before(), now);
  ASSERT_EQ(kinds(c), (std::vector<std::string>{"patch_gone", "package_version"}));
  EXPECT_EQ(c[0].fate, PatchFate::kOtherVersion);
  EXPECT_EQ(c[0].after, "0.4.7");
  EXPECT_EQ(c[1].before, "0.4.6");
  EXPECT_EQ(c[1].after, "0.4.7");

  now.python[0].packages.erase(now.python[0].packages.begin());  // gone from a read environment
  c = compare_fingerprints(before(), now);
  ASSERT_EQ(kinds(c), std::vector<std::string>{"patch_gone"});
  EXPECT_EQ(c[0].fate, PatchFate::kNotInstalled);
  EXPECT_EQ(c[0].after, "not installed");
}

TEST(FingerprintCompare, APatchNotLookedAtIsNotGone) {
  Fingerprint now = before();
  now.python[0].packages[0].modified.clear();
  now.python[0].packages[0].fully_checked = false;  // a bound met: not known pristine
  EXPECT_TRUE(compare_fingerprints(before(), now).empty());
  now = before();
  now.python.clear();  // no server on that interpreter now: not read
  EXPECT_TRUE(compare_fingerprints(before(), now).empty());
}

TEST(FingerprintCompare, DataPathOnAnotherDevice) {
  Fingerprint now = before();
  now.mounts[0] = {"/data", "/dev/nvme0n1p1", "nvme0n1p1", "ext4", std::nullopt};
  std::vector<FingerprintChange> c = compare_fingerprints(before(), now);
  ASSERT_EQ(kinds(c), std::vector<std::string>{"data_device"});
  EXPECT_EQ(c[0].item, "/data");
  EXPECT_EQ(c[0].before, "vdb1");
  EXPECT_EQ(c[0].after, "nvme0n1p1");
  EXPECT_EQ(c[0].mount_before->source, "/dev/vdb1");
  EXPECT_EQ(c[0].mount_after->source, "/dev/nvme0n1p1");
}

TEST(FingerprintCompare, GpuReplacedMovedAndItsVbios) {
  Fingerprint now = before();
  now.gpus[1].uuid = "GPU-9";
  now.gpus[1].serial = "9999";  // another board at 2a:00.0
  now.gpus[0].pci_bus_id = "0000:19:00.0";
  now.gpus[0].vbios_version = "96.00.99.00.02";
  std::vector<FingerprintChange> c = compare_fingerprints(before(), now);
  ASSERT_EQ(kinds(c), (std::vector<std::string>{"gpu_moved", "vbios", "gpu_replaced"}));
  EXPECT_EQ(said(c),
            (std::vector<std::string>{"GPU-0: 0000:18:00.0 -> 0000:19:00.0",
                                      "GPU-0: 96.00.99.00.01 -> 96.00.99.00.02",
                                      "0000:2a:00.0: serial 1001 (GPU-1) -> serial 9999 (GPU-9)"}));
  EXPECT_EQ(c[2].gpu_before->uuid, "GPU-1");
  EXPECT_EQ(c[2].gpu_after->uuid, "GPU-9");
}

TEST(FingerprintCompare, DriverVersionsAndTheKernel) {
  Fingerprint was = before();
  was.driver.nvml_driver_version = was.driver.libcuda_version = "590.48.01";
  Fingerprint now = was;
  now.driver = {"595.10.02", "595.10.02", std::nullopt, "595.10.02", std::nullopt};
  now.kernel_release = "6.8.0-60-generic";
  std::vector<FingerprintChange> c = compare_fingerprints(was, now);
  ASSERT_EQ(kinds(c), (std::vector<std::string>{"driver", "driver", "driver", "kernel"}));
  EXPECT_EQ(said(c), (std::vector<std::string>{"kernel module: 590.48.01 -> 595.10.02",
                                               "NVML: 590.48.01 -> 595.10.02",
                                               "libcuda: 590.48.01 -> 595.10.02",
                                               "kernel: 6.8.0-51-generic -> 6.8.0-60-generic"}));
}

TEST(FingerprintCompare, AUnitOwningAServerNowAndNoneThen) {
  Fingerprint was = story_fingerprint();
  Fingerprint now = story_fingerprint();
  now.server_units = {{"sglang.service", "SGLang", "Restart=always", true, false}};
  EXPECT_TRUE(compare_fingerprints(was, now).empty());  // units not recorded then
  was.server_units.emplace();
  std::vector<FingerprintChange> c = compare_fingerprints(was, now);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, FingerprintChangeKind::kServerUnit);
  EXPECT_EQ(c[0].item, "sglang.service");
  EXPECT_EQ(c[0].after, "SGLang server");
  EXPECT_TRUE(compare_fingerprints(now, now).empty());
  EXPECT_TRUE(compare_fingerprints(now, was).empty());  // a unit gone is not said
}

TEST(FingerprintCompare, UnknownOnEitherSideIsNeverAChange) {
  Fingerprint unknown = before();
  unknown.container.reset();  // a capture
  for (GpuPrint& g : unknown.gpus) g.serial.reset(), g.vbios_version.reset();
  unknown.gpus[1].uuid.reset();
  unknown.gpus[1].pci_bus_id = "0000:2a:00.0";
  unknown.gpus[0].pci_bus_id.reset();
  unknown.driver = {};
  unknown.kernel_release.reset();
  unknown.mounts[0].device.reset();
  unknown.mounts[0].source.reset();
  EXPECT_TRUE(compare_fingerprints(before(), unknown).empty());
  EXPECT_TRUE(compare_fingerprints(unknown, before()).empty());
}

TEST(FingerprintCompare, BaselineIsThePreviousBootsLastElseThisBootsFirst) {
  GpuHistory h;
  h.boot_id = "5e1f0c22-4f3a";
  EXPECT_FALSE(fingerprint_baseline(h).print);
  Fingerprint first = before(), last = before();
  first.taken_unix_s = 1767200000;
  h.boots = {{"5e1f0c22-4f3a", 1767300000, 1767300000, first, first}};
  FingerprintBaseline b = fingerprint_baseline(h);
  ASSERT_TRUE(b.print);
  EXPECT_TRUE(b.this_boot);
  EXPECT_EQ(b.when, "this boot's first run (2025-12-31 16:53 UTC)");
  h.boots.insert(h.boots.begin(), {"5e1f0c21-4f3a", 1767200000, 1767225000, first, last});
  b = fingerprint_baseline(h);
  EXPECT_EQ(b.print, &*h.boots[0].last_fingerprint);
  EXPECT_FALSE(b.this_boot);
  EXPECT_EQ(b.boot_id, "5e1f0c21-4f3a");
  EXPECT_EQ(b.taken_unix_s, 1767225000);
  EXPECT_EQ(b.when, "the last run of boot 5e1f0c21 (2025-12-31 23:50 UTC)");
}

}  // namespace fingerprint_compare_test
}  // namespace gt
