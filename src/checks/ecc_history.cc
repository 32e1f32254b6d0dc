// The GPU's memory-error history, beyond what needs action now
// (hardware.cc): the lifetime (aggregate) uncorrectable count, pages
// retired for double-bit errors past DCGM's soft limit, and banks with no
// spare rows left. Volatile counters reset when the driver loads; the
// aggregate record and the row remapper's banks survive, so a GPU can read
// 0 volatile errors and still carry thousands in its history.
//
// Sources: DCGM's health watch (dcgm_gpu_hardware_limits.h) fails at 60
// retired pages and warns past 15 double-bit retired pages
// (DCGM_LIMIT_MAX_RETIRED_PAGES_SOFT_LIMIT); DCGM and gpud judge only the
// volatile uncorrectable count, so the aggregate rule is ours (a warning
// with the numbers); a bank with no spare rows cannot remap its next
// failing row (NVIDIA's A100/H100 memory error management).
#include <fmt/format.h>

#include "checks/checks.h"
#include "util/plural.h"

namespace gt {
namespace {

constexpr uint32_t kRetiredPagesLimit = 60;  // hardware.cc's RMA limit
constexpr uint32_t kDbeRetiredSoftLimit = 15;

std::string num(const std::optional<uint64_t>& v) { return v ? fmt::format("{}", *v) : "unknown"; }
std::string num(const std::optional<uint32_t>& v) { return v ? fmt::format("{}", *v) : "unknown"; }

std::string history_evidence(const GpuState& g) {
  std::string e = fmt::format(
      "uncorrected: aggregate {}, volatile {}; corrected: aggregate {}, volatile {}; retired "
      "pages: single-bit {}, double-bit {}; remapped rows: uncorrectable {}, correctable {}",
      num(g.ecc.aggregate_uncorrected), num(g.ecc.volatile_uncorrected),
      num(g.ecc.aggregate_corrected), num(g.ecc.volatile_corrected),
      num(g.retired_pages.single_bit), num(g.retired_pages.double_bit),
      num(g.remapped_rows.uncorrectable), num(g.remapped_rows.correctable));
  if (const auto& h = g.row_remapper_histogram)
    e += fmt::format("; banks by spare rows left: max {}, high {}, partial {}, low {}, none {}",
                     num(h->max), num(h->high), num(h->partial), num(h->low), num(h->none));
  return e;
}

std::string history_command(const GpuState& g) {
  return "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i " + std::to_string(g.index);
}

void aggregate_one(const GpuState& g, std::vector<Finding>& out) {
  uint64_t lifetime = g.ecc.aggregate_uncorrected.value_or(0);
  // Volatile errors are ecc.volatile_uncorrectable's (critical) to report.
  if (lifetime == 0 || g.ecc.volatile_uncorrected.value_or(0) > 0) return;
  Finding f = gpu_finding("ecc.aggregate_uncorrectable", g);
  f.title = fmt::format("{}: {} in its lifetime record", gpu_label(g),
                        count_of(lifetime, "uncorrectable ECC error", "uncorrectable ECC errors"));
  f.evidence = history_evidence(g);
  f.action =
      "The volatile counters were reset when the driver loaded; the lifetime record was not. "
      "Read the GPU's history; with retired pages or remapped rows near their limits, or a "
      "recovery action, plan an RMA and keep critical jobs off it.";
  f.commands = {history_command(g)};
  out.push_back(f);
}

void dbe_pages_one(const GpuState& g, std::vector<Finding>& out) {
  const RetiredPages& rp = g.retired_pages;
  uint32_t dbe = rp.double_bit.value_or(0);
  if (dbe <= kDbeRetiredSoftLimit) return;
  if (dbe + rp.single_bit.value_or(0) >= kRetiredPagesLimit) return;  // the RMA finding says it
  Finding f = gpu_finding("ecc.retired_pages_dbe", g);
  f.title = fmt::format("{}: {} pages retired for double-bit errors (DCGM's soft limit {})",
                        gpu_label(g), dbe, kDbeRetiredSoftLimit);
  f.evidence = history_evidence(g);
  f.action =
      "Watch the count: DCGM fails a GPU that retires more than one more such page in a week. "
      "Plan an RMA if it grows.";
  f.commands = {history_command(g)};
  out.push_back(f);
}

void no_spare_one(const GpuState& g, std::vector<Finding>& out) {
  if (!g.row_remapper_histogram || g.row_remapper_histogram->none.value_or(0) == 0) return;
  if (g.remapped_rows.failure.value_or(false)) return;  // ecc.remap_failure says it
  Finding f = gpu_finding("ecc.remap_no_spare", g);
  f.title = fmt::format("{}: {} with no spare rows left", gpu_label(g),
                        count_of(*g.row_remapper_histogram->none, "memory bank", "memory banks"));
  f.evidence = history_evidence(g);
  f.action =
      "The next failing row in such a bank cannot be remapped: the GPU is bound for RMA before "
      "its first remap failure. Plan the RMA; keep critical jobs off it.";
  f.commands = {history_command(g)};
  out.push_back(f);
}

}  // namespace

void check_ecc_history(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) {
    aggregate_one(g, out);
    dbe_pages_one(g, out);
    no_spare_one(g, out);
  }
}

}  // namespace gt
