// The typed model's words: every enumerator has its own name, and the JSON
// reader (report/json_read.h EnumWords) reads each name back as the value.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/driver_recovery.h"
#include "model/fabric_state.h"
#include "model/fleet.h"
#include "model/incident.h"
#include "model/kernel_log_event.h"
#include "model/mounts.h"
#include "model/nvml_init.h"
#include "model/owner_kind.h"

namespace gt {
namespace model_words_test {

/// Each listed value has a name of its own (not the "?" a missing switch
/// case falls through to), listed in declaration order, and the list holds
/// every enumerator: the value after the last listed one has no name.
enum class Order { kAlphabetical, kAsDeclared };

template <typename E, size_t N, typename Name>
void expect_named(const std::array<E, N>& all, Name name, Order order = Order::kAlphabetical) {
  std::set<std::string> seen;
  for (size_t i = 0; i < N; ++i) {
    EXPECT_EQ(static_cast<size_t>(all[i]), i) << "listed out of declaration order";
    std::string n = name(all[i]);
    EXPECT_NE(n, "?") << "enumerator " << i << " has no name";
    EXPECT_TRUE(seen.insert(n).second) << n << " named twice";
    // Alphabetical: a map keyed by the enum orders as it did by the word.
    if (i > 0 && order == Order::kAlphabetical) {
      EXPECT_LT(std::string(name(all[i - 1])), n);
    }
  }
  EXPECT_STREQ(name(static_cast<E>(N)), "?") << "an enumerator is missing from the list";
}

TEST(ModelWords, KernelLogEventKind) {
  expect_named(kEventKinds, event_kind_name);
  EXPECT_STREQ(event_kind_name(EventKind::kXid), "xid");
  EXPECT_STREQ(event_kind_name(EventKind::kSxid), "sxid");
  EXPECT_STREQ(event_kind_name(EventKind::kFallenOffBus), "fallen-off-bus");
}

TEST(ModelWords, KernelLogBoot) {
  expect_named(kLogBoots, log_boot_name);
  EXPECT_STREQ(log_boot_name(LogBoot::kCurrent), "current");
  EXPECT_STREQ(log_boot_name(LogBoot::kPrevious), "previous");
  EXPECT_STREQ(log_boot_name(LogBoot::kFile), "file");
}

TEST(ModelWords, OwnerKind) {
  expect_named(kOwnerKinds, owner_kind_name);
  EXPECT_STREQ(owner_kind_name(OwnerKind::kSystemdUnit), "systemd-unit");
  EXPECT_STREQ(owner_kind_name(OwnerKind::kSystemdUserUnit), "systemd-user-unit");
  EXPECT_STREQ(owner_kind_name(OwnerKind::kCriO), "cri-o");
  EXPECT_STREQ(owner_kind_name(OwnerKind::kKubernetesPod), "kubernetes-pod");
  EXPECT_STREQ(owner_kind_name(OwnerKind::kUserSession), "user-session");
  EXPECT_TRUE(container_owner(OwnerKind::kCriO));
  EXPECT_FALSE(container_owner(OwnerKind::kKubernetesPod));
}

TEST(ModelWords, MountProblem) {
  expect_named(kMountProblems, mount_problem_name);
  EXPECT_STREQ(mount_problem_name(MountProblem::kNotMounted), "not_mounted");
  EXPECT_STREQ(mount_problem_name(MountProblem::kWrongDevice), "wrong_device");
  EXPECT_STREQ(mount_problem_name(MountProblem::kReadOnly), "read_only");
}

TEST(ModelWords, BootEnding) {
  expect_named(kBootEndings, boot_ending_name);
  EXPECT_STREQ(boot_ending_name(BootEnding::kCleanShutdown), "clean_shutdown");
  EXPECT_STREQ(boot_ending_name(BootEnding::kKernelPanic), "kernel_panic");
  EXPECT_STREQ(boot_ending_name(BootEnding::kUnknown), "unknown");
}

// The enums whose order means something (rank, NVML's numbering) are listed
// as declared; each list still holds every enumerator.
TEST(ModelWords, RankedAndNumberedEnums) {
  expect_named(kRecoveryActions, recovery_action_name, Order::kAsDeclared);
  expect_named(kFabricStates, fabric_state_name, Order::kAsDeclared);
  expect_named(kFabricHealthSummaries, fabric_health_summary_name, Order::kAsDeclared);
  expect_named(kNvmlInitErrors, nvml_init_error_name, Order::kAsDeclared);
  expect_named(kVerdicts, verdict_name, Order::kAsDeclared);
  expect_named(kHostVias, host_via_name, Order::kAsDeclared);
}

// The order of a fingerprint's changes is the comparison's (and the node's
// findings'), listed as declared.
TEST(ModelWords, FingerprintChangeKindAndOwnPastState) {
  expect_named(kFingerprintChangeKinds, fingerprint_change_kind_name, Order::kAsDeclared);
  EXPECT_STREQ(fingerprint_change_kind_name(FingerprintChangeKind::kGpuReplaced), "gpu_replaced");
  expect_named(kOwnPastStates, own_past_state_name, Order::kAsDeclared);
  EXPECT_STREQ(own_past_state_name(OwnPastState::kNoEarlierRun), "no_earlier_run");
}

}  // namespace model_words_test
}  // namespace gt
