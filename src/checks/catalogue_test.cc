// The catalogue's table: one row per id, every row reachable by its id,
// its columns consistent, and each row's docs entry, man page entry and
// alert present (a planted row without them is caught).
#include "checks/catalogue.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace gt {
namespace catalogue_test {

std::string read(const std::string& rel) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/" + rel);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

CatalogueSources real_sources() {
  return {read("docs/checks.md"), read("docs/gpu-triage.1"),
          read("contrib/prometheus/gpu-triage.rules.yml")};
}

/// An id that reaches the row: itself, or a number for a ".*" row.
std::string id_of(const CheckSpec& c) {
  std::string id = c.id;
  if (id.ends_with(".*")) id = id.substr(0, id.size() - 1) + "9999";
  return id;
}

TEST(Catalogue, NoTwoRowsShareAnId) {
  std::set<std::string> seen;
  for (const CheckSpec& c : check_catalogue()) EXPECT_TRUE(seen.insert(c.id).second) << c.id;
}

TEST(Catalogue, EveryRowIsReachedByItsId) {
  for (const CheckSpec& c : check_catalogue()) EXPECT_EQ(find_check(id_of(c)), &c) << c.id;
  EXPECT_EQ(find_check("gpu.xid.13")->id, std::string("gpu.xid.*"));
  EXPECT_EQ(find_check("gpu.xid.79")->id, std::string("gpu.xid.79"));
  EXPECT_EQ(find_check("no.such.id"), nullptr);
}

TEST(Catalogue, EveryRowHasItsDocsManPageEntryAndAlert) {
  for (const std::string& p : catalogue_problems(check_catalogue(), real_sources()))
    ADD_FAILURE() << p;
}

TEST(Catalogue, APlantedRowWithoutDocsOrAlertIsCaught) {
  const CatalogueSources src = real_sources();
  std::vector<CheckSpec> rows = {check_catalogue().front()};
  ASSERT_TRUE(catalogue_problems(rows, src).empty());
  CheckSpec planted = rows.front();
  planted.id = "gpu.planted_for_test";
  planted.alert = "GpuTriagePlantedForTest";
  rows.push_back(planted);
  const std::vector<std::string> p = catalogue_problems(rows, src);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], "gpu.planted_for_test: not documented in docs/checks.md #nvml-and-the-driver");
  EXPECT_EQ(p[1], "gpu.planted_for_test: not in the man page's FINDINGS");
  EXPECT_EQ(p[2],
            "gpu.planted_for_test: alert GpuTriagePlantedForTest is not defined in "
            "gpu-triage.rules.yml");
  // An alert that exists but selects other ids, a "none" without a reason,
  // a duplicate row, a section that does not exist.
  planted = rows.front();
  planted.alert = "GpuTriageIdleServerHoldingMemory";
  rows = {planted};
  EXPECT_EQ(catalogue_problems(rows, src),
            std::vector<std::string>{"nvml.library_missing: alert "
                                     "GpuTriageIdleServerHoldingMemory does not select this id"});
  planted.alert = "none: ";
  planted.anchor = "no-such-section";
  rows = {planted, planted};
  const std::vector<std::string> q = catalogue_problems(rows, src);
  EXPECT_NE(std::find(q.begin(), q.end(), "nvml.library_missing: two rows"), q.end());
  EXPECT_NE(std::find(q.begin(), q.end(),
                      "nvml.library_missing: docs/checks.md has no section #no-such-section"),
            q.end());
  EXPECT_NE(std::find(q.begin(), q.end(), "nvml.library_missing: alert \"none\" without a reason"),
            q.end());
}

TEST(Catalogue, AnAlertsExcludedIdIsCaught) {
  CheckSpec c = *find_check("ecc.retired_pages_dbe");
  c.alert = "GpuTriageGpuMemoryErrors";  // its rule excludes this id
  EXPECT_EQ(catalogue_problems({c}, real_sources()),
            std::vector<std::string>{
                "ecc.retired_pages_dbe: alert GpuTriageGpuMemoryErrors does not select this id"});
}

TEST(Catalogue, AnEmittedIdWithoutARowIsReported) {
  EXPECT_TRUE(uncatalogued({"gpu.lost", "gpu.xid.13", "gpu.sxid.12"}).empty());
  EXPECT_EQ(uncatalogued({"gpu.lost", "gpu.planted_for_test", "gpu.planted_for_test"}),
            std::vector<std::string>{"gpu.planted_for_test"});
}

TEST(Catalogue, PlanRankFollowsTheStageAndTheSeverity) {
  auto rank = [](const char* id, Severity s) {
    Finding f;
    f.id = id;
    f.severity = s;
    return plan_rank(f);
  };
  EXPECT_EQ(rank("nvml.driver_not_loaded", Severity::kCritical), 0);
  EXPECT_EQ(rank("driver.wedged", Severity::kWarning), 0);
  EXPECT_EQ(rank("clock.unsynchronised", Severity::kWarning), 1);
  EXPECT_EQ(rank("gpu.lost", Severity::kCritical), 1);
  EXPECT_EQ(rank("gpu.xid.13", Severity::kWarning), 3);
  EXPECT_EQ(rank("mount.missing", Severity::kWarning), 2);
  EXPECT_EQ(rank("mount.network_or_overlay", Severity::kInfo), 9);
  EXPECT_EQ(rank("ecc.remap_failure", Severity::kCritical), 2);
  EXPECT_EQ(rank("ecc.remap_pending", Severity::kWarning), 3);
  EXPECT_EQ(rank("memory.held_idle", Severity::kWarning), 4);
  EXPECT_EQ(rank("disk.low_space", Severity::kCritical), 2);
  EXPECT_EQ(rank("disk.low_space", Severity::kWarning), 5);
  EXPECT_EQ(rank("driver.version_contradiction", Severity::kWarning), 5);
  EXPECT_EQ(rank("data.bad", Severity::kWarning), 6);
  EXPECT_EQ(rank("persistence.off", Severity::kWarning), 7);
  EXPECT_EQ(rank("data.not_started", Severity::kInfo), 8);  // the rerun, after the tuning
  EXPECT_EQ(rank("kernel_log.unreadable", Severity::kInfo), 9);
  EXPECT_TRUE(note_is_step("kernel_log.unreadable"));
  EXPECT_FALSE(note_is_step("pcie.link_idle_low"));
  // The rerun's note is a step only when it says how (no bad file's step does).
  Finding rerun;
  rerun.id = "data.not_started";
  rerun.severity = Severity::kInfo;
  EXPECT_FALSE(note_is_step(rerun));
  rerun.action = "Rerun the same command.";
  EXPECT_TRUE(note_is_step(rerun));
}

TEST(Catalogue, ColumnsAgree) {
  for (const CheckSpec& c : check_catalogue()) {
    const std::string id = c.id;
    // Only a GPU's own findings join its step; a join has a remedy rule.
    if (c.join == GpuJoin::kApart) continue;
    EXPECT_TRUE(c.stage == PlanStage::kGpu || c.stage == PlanStage::kHardware) << id;
  }
  EXPECT_EQ(finding_number("gpu.xid.79"), 79);
  EXPECT_EQ(finding_number("gpu.sxid.12"), 12);
  EXPECT_EQ(finding_number("gpu.xid.abc"), std::nullopt);
  EXPECT_EQ(finding_number("gpu.lost"), std::nullopt);
  EXPECT_EQ(kept_as("gpu.xid.79"), "Xid 79");
  EXPECT_EQ(kept_as("gpu.xid.48"), "Xid 48");
  EXPECT_EQ(kept_as("gpu.recovery_action"), "a driver recovery action");
  EXPECT_EQ(kept_as("gpu.lost"), std::nullopt);
  EXPECT_TRUE(kept_by_id("gpu.recovery_action"));
  EXPECT_FALSE(kept_by_id("gpu.xid.79"));  // kept by its Xid codes
}

}  // namespace catalogue_test
}  // namespace gt
