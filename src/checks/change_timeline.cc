// What changed since the job last ran, on the "what happened" timeline
// (issue 36 item 4): the run compared with (the record's baseline), the
// creation of the container this run is in, and each change of the one
// comparison (checks/fingerprint_compare.h) at the first run that saw it:
// this boot's first run when it already had the change, else this run.
#include <fmt/format.h>

#include <algorithm>

#include "checks/checks.h"
#include "checks/fingerprint_compare.h"
#include "history/record.h"

namespace gt {
namespace {

constexpr const char* kRecordSource = "record across boots";

/// "container 0a1b2c3d4e5f, driver 590.48.01, /data on vdb1": what the
/// compared run saw of what breaks a job when it changes.
std::string summary(const Fingerprint& f) {
  std::vector<std::string> parts;
  if (f.container)
    parts.push_back(f.container->id == kHostNotContainer
                        ? std::string("on the host")
                        : "container " + f.container->id.substr(0, 12));
  if (f.driver.kernel_module_version) parts.push_back("driver " + *f.driver.kernel_module_version);
  for (const MountPrint& m : f.mounts)
    if (m.path != "/" && (m.device || m.source))
      parts.push_back(m.path + " on " + m.device.value_or(m.source.value_or("")));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

/// "GPU replaced 0000:2a:00.0: serial 1 (GPU-a) -> serial 2 (GPU-b)".
std::string change_words(const FingerprintChange& c) {
  if (c.kind == FingerprintChangeKind::kContainerRecreated)
    return fmt::format("container recreated: {} -> {}", c.before.substr(0, 12),
                       c.after.substr(0, 12));
  std::string kind = fingerprint_change_kind_name(c.kind);
  std::replace(kind.begin(), kind.end(), '_', ' ');
  return fmt::format("{} {}: {} -> {}", kind, c.item, c.before, c.after);
}

/// This boot's first run, when it is not the baseline itself.
const Fingerprint* this_boots_first(const GpuHistory& h, const FingerprintBaseline& b) {
  if (b.this_boot || !h.boot_id) return nullptr;
  const HistoryBoot* boot = find_boot(h, *h.boot_id);
  return boot && boot->first_fingerprint ? &*boot->first_fingerprint : nullptr;
}

}  // namespace

void add_change_timeline(NodeSnapshot& s) {
  if (!s.incident || !s.fingerprint || !s.history) return;
  std::vector<IncidentLine>& t = s.incident->timeline;
  const Fingerprint& now = *s.fingerprint;
  if (now.container && now.container->id != kHostNotContainer && now.container->created_unix_s)
    t.push_back(
        {now.container->created_unix_s,
         "container " + now.container->id.substr(0, 12) + " created (gpu-triage runs in it)",
         now.container->id_from.value_or("/proc/1")});
  const FingerprintBaseline b = fingerprint_baseline(*s.history);
  if (b.print) {
    t.push_back({b.taken_unix_s,
                 fmt::format("gpu-triage's run compared with ({}): {}", b.when, summary(*b.print)),
                 kRecordSource});
    const std::vector<FingerprintChange> changes = compare_fingerprints(*b.print, now);
    const Fingerprint* first = this_boots_first(*s.history, b);
    const std::vector<FingerprintChange> seen_first =
        first ? compare_fingerprints(*b.print, *first) : std::vector<FingerprintChange>{};
    for (const FingerprintChange& c : changes) {
      const bool already = std::any_of(seen_first.begin(), seen_first.end(), [&](const auto& x) {
        return x.kind == c.kind && x.item == c.item && x.after == c.after;
      });
      t.push_back({already ? first->taken_unix_s : now.taken_unix_s,
                   "changed since then: " + change_words(c), kRecordSource});
    }
  }
  sort_timeline(t);
}

}  // namespace gt
