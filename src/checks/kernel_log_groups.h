// The kernel log's events grouped per (kind, code, bus id, boot), with the
// storm counts the parser folded in (count, first line, last line). Shared by
// the per-GPU findings (kernel_log_checks.cc) and the many-GPU application
// fault (app_fault.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "model/snapshot.h"

namespace gt {

struct EventGroup {
  const KernelLogEvent* first = nullptr;  ///< holds the group's first line
  const KernelLogEvent* last = nullptr;   ///< holds its last line
  uint64_t count = 0;                     ///< lines, folded ones included
  std::vector<const KernelLogEvent*> all;
  bool part_of_app_fault = false;  ///< joined into kernel_log.app_fault_many_gpus
};

using EventKey = std::tuple<EventKind, int, std::string, LogBoot>;  // kind, code, bus, boot

std::map<EventKey, EventGroup> group_events(const KernelLog& log);

/// The last line's timestamp as printed, else seconds after boot, else "time unknown".
std::string last_when(const KernelLogEvent& e);
/// The first line's, the same way.
std::string first_when(const KernelLogEvent& e);

/// Seconds of the group's first and last line on one clock: wall time when
/// both events have it, else seconds since boot; nullopt otherwise.
struct Span {
  double first;
  double last;
  bool wall;
};
std::optional<Span> span_of(const EventGroup& g);

/// 120000 -> "120,000".
std::string with_commas(uint64_t n);

}  // namespace gt
