// The check catalogue: one row per finding id, and everything that happens
// to a finding after its check made it is a column of its row (the plan's
// stage, the per-GPU step's join and remedy, the joins of one event, the
// record across boots, the alert, the docs). Nothing outside this file and
// registry.cc compares a finding id by prefix or equality
// (tests/e2e/layering.sh). Ids are a public interface (JSON, Prometheus
// labels, docs/checks.md, test names): never rename one; add a new one and
// retire the old. How to add a finding: docs/design.md "Adding a finding".
//
// Every layer may read this header: it is data about findings (model/
// types only), no check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/finding.h"

namespace gt {

/// Where a finding's step goes in the plan: what blocks getting the node
/// back to work first. A critical finding moves up to the critical faults
/// (plan_rank()), except where its stage is already earlier.
enum class PlanStage : uint8_t {
  kDriver,    ///< a broken or wedged driver: nothing works until it is fixed
  kClock,     ///< the clock: every time in the report depends on it
  kGpu,       ///< a GPU's own state: right after the clock when critical (lost,
              ///< missing, fatal Xid), else with the hardware
  kMounts,    ///< a missing, misplaced or read-only mount (warning or worse)
  kHardware,  ///< needs a reset, a reseat or an RMA (ECC, links, temperature)
  kCuda,      ///< CUDA or NCCL will not start (libraries, device nodes, limits):
              ///< before the servers are freed and the job resumed
  kServers,   ///< an idle server holding GPUs: one step per server, with the
              ///< commands `gpu-triage free` gives for it
  kHolders,   ///< other holders of GPU memory
  kDisk,      ///< the job's disk space, the previous boot's end, a library split
  kData,      ///< the job's data: the rerun comes after what would stop it
  kTuning,    ///< clocks, persistence, an idle link
  kResume,    ///< the job's rerun, once the node is ready: a step even as a
              ///< note when the finding says how (its action)
  kUnread,    ///< a source that could not be read: last, and a step even as a
              ///< note (the operator must know what was not looked at)
  kLast,      ///< anything else: last
};

/// Whether a finding joins its GPU's one step (checks/gpu_step.h), and its
/// rank there among findings asking the same remedy (lower says more).
enum class GpuJoin : uint8_t {
  kApart,     ///< node-wide or not about the GPU's hardware: never joins
  kDying,     ///< the GPU dying (lost, unresponsive, missing from NVML)
  kRecord,    ///< the record across boots (repeat offender)
  kEvent,     ///< the GPU's other events (its Xids, recovery action, ...)
  kCounters,  ///< its ECC counters (the Xid's workflow covers them)
  kLinks,     ///< its links, fabric and temperature
};

/// What a finding asks for, weakest first (the per-GPU step's lead is the
/// strongest).
enum class Remedy : uint8_t { kWatch, kDiagnose, kReset, kReboot, kRma };

/// How a row's remedy is known: fixed, or from the finding itself.
enum class RemedyRule : uint8_t {
  kWatch,
  kDiagnose,
  kReset,
  kReboot,
  kRma,
  kByCommands,  ///< its commands: a reboot, else a reset, else diagnose
  kByXid,       ///< the Xid catalogue's action (a previous boot's: watch)
  kByRecord,    ///< RMA when critical (three boots), else a reboot
};

/// Findings that are one event seen from several sources, joined into one
/// finding (checks/join.cc).
enum class FindingEvent : uint8_t {
  kAlone,
  kDyingLead,     ///< gpu.lost leads a dying GPU's findings (by bus id) ...
  kDyingTimeout,  ///< ... then an unresponsive GPU (also an NVML timeout) ...
  kDyingMissing,  ///< ... then missing from NVML ...
  kDyingLogged,   ///< ... then the kernel log's "fallen off the bus" ...
  kDyingXid,      ///< ... then its Xid 79
  kRecoveryLead,  ///< the driver's recovery action leads ...
  kRecoveryXid,   ///< ... its Xid 154 ("recovery action changed") joins it
  kWedgedLead,    ///< a wedged driver: the NVML timeouts fold into it
  kNvmlTimeout,   ///< a node-wide NVML timeout (folds into a wedged driver)
  kCuInit803,     ///< predicts cuInit 803 in a new job (the probe's proof joins it)
  kCuInit804,     ///< predicts cuInit 804 in a new job (the probe's proof joins it)
  kCuInitProof,   ///< the probe's cuInit failure: joins the prediction of its error
};

struct CheckSpec {
  const char* id;      ///< "gpu.lost"; a row ending in ".*" takes a number ("gpu.xid.79")
  const char* family;  ///< "nvml", "gpu", "memory", "ecc", "pcie", "clocks", ...
  Severity severity;   ///< the default; some checks grade it (disk, Xid)
  PlanStage stage;
  GpuJoin join;
  RemedyRule remedy;
  FindingEvent event;
  const char* kept_as;  ///< the record across boots keeps it, named so ("{}": its
                        ///< number); "" when not kept
  const char* alert;    ///< its alert in contrib/prometheus/gpu-triage.rules.yml,
                        ///< or "none: " and why not
  const char* anchor;   ///< its section of docs/checks.md ("memory-errors")
  const char* title;    ///< one line: what it means
};

/// Every finding id gpu-triage can produce (src/checks/registry.cc).
const std::vector<CheckSpec>& check_catalogue();

/// The row of `id` ("gpu.xid.13" finds "gpu.xid.*"); nullptr if none.
const CheckSpec* find_check(std::string_view id);

/// The number of a numbered id ("gpu.xid.79": 79): digits (at most four)
/// after the prefix of a ".*" row; nullopt otherwise.
std::optional<int> finding_number(std::string_view id);

/// The row's column, for a finding whose id has no row the least: last in
/// the plan, apart from any GPU's step, alone, not kept.
PlanStage plan_stage(std::string_view id);
GpuJoin gpu_join(std::string_view id);
RemedyRule remedy_rule(std::string_view id);
FindingEvent finding_event(std::string_view id);

/// The plan's order of `f`'s step (lower first; checks/plan.cc).
int plan_rank(const Finding& f);

/// Whether a note (info) of this id is still a plan step (PlanStage::kUnread).
bool note_is_step(std::string_view id);
/// Whether this note (info) is a plan step: note_is_step, or the job's rerun
/// (PlanStage::kResume) when the finding says how.
bool note_is_step(const Finding& f);

/// What the record across boots calls this finding ("Xid 79", "a driver
/// recovery action"); nullopt when the record does not keep it.
std::optional<std::string> kept_as(std::string_view id);

/// Whether the record keeps findings of `id` by their own id (a numbered
/// family such as gpu.xid.* is kept by its Xid codes instead).
bool kept_by_id(std::string_view id);

/// What the catalogue is checked against: each row's docs entry, man page
/// entry and alert. One message per problem; empty when all agree.
struct CatalogueSources {
  std::string checks_md;  ///< docs/checks.md
  std::string man_page;   ///< docs/gpu-triage.1
  std::string rules_yml;  ///< contrib/prometheus/gpu-triage.rules.yml
};
std::vector<std::string> catalogue_problems(const std::vector<CheckSpec>& rows,
                                            const CatalogueSources& sources);

/// Ids (findings[].id and joined_ids of any output) without a row.
std::vector<std::string> uncatalogued(const std::vector<std::string>& ids);

}  // namespace gt
