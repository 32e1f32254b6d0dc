// Xid 162 cancels an earlier Xid 163; see cancellation.h.
#include "sources/kernel_log/cancellation.h"

#include <optional>

#include "model/xid_catalog.h"

namespace gt::klog {
namespace {

struct When {
  std::optional<int64_t> unix_s;
  std::optional<double> mono;
};

When last_line(const KernelLogEvent& e) {
  if (e.count > 1) return {e.last_time_unix_s, e.last_monotonic_s};
  return {e.time_unix_s, e.monotonic_s};
}

/// a is not later than b; nullopt when they cannot be compared.
std::optional<bool> not_later(const When& a, const When& b) {
  if (a.unix_s && b.unix_s) return *a.unix_s <= *b.unix_s;
  if (a.mono && b.mono) return *a.mono <= *b.mono;
  return std::nullopt;
}

bool cancels(const KernelLogEvent& c, const KernelLogEvent& e) {
  if (c.kind != EventKind::kXid || !c.code || !e.code || xid_facts(*c.code).cancels != *e.code)
    return false;
  if (c.pci_bus_id != e.pci_bus_id || c.boot != e.boot) return false;
  return not_later(last_line(e), last_line(c)).value_or(false);
}

}  // namespace

void mark_cancellations(std::vector<KernelLogEvent>& events) {
  for (KernelLogEvent& e : events) {
    if (e.kind != EventKind::kXid || !e.code || !xid_cancelled_by(*e.code)) continue;
    e.cancelled_by_code.reset();
    for (const KernelLogEvent& c : events)
      if (cancels(c, e)) e.cancelled_by_code = c.code;
  }
}

}  // namespace gt::klog
