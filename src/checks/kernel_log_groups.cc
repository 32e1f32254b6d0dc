// Grouping kernel-log events per (kind, code, bus id, boot); see the header.
#include "checks/kernel_log_groups.h"

#include <fmt/format.h>

namespace gt {

std::map<EventKey, EventGroup> group_events(const KernelLog& log) {
  std::map<EventKey, EventGroup> groups;
  for (const KernelLogEvent& e : log.events) {
    EventGroup& g =
        groups[EventKey{e.kind, e.code.value_or(-1), e.pci_bus_id.value_or(""), e.boot}];
    if (!g.first) g.first = &e;
    g.last = &e;
    g.all.push_back(&e);
    g.count += e.count;
  }
  return groups;
}

namespace {

std::string when(const std::optional<std::string>& text, std::optional<double> mono) {
  if (text) return *text;
  if (mono) return fmt::format("{:.1f} s after boot", *mono);
  return "time unknown";
}

}  // namespace

std::string first_when(const KernelLogEvent& e) { return when(e.time_text, e.monotonic_s); }

std::string last_when(const KernelLogEvent& e) {
  return e.count > 1 ? when(e.last_time_text, e.last_monotonic_s) : first_when(e);
}

std::optional<Span> span_of(const EventGroup& g) {
  const KernelLogEvent& a = *g.first;
  const KernelLogEvent& b = *g.last;
  bool folded = b.count > 1;
  std::optional<int64_t> last_unix = folded ? b.last_time_unix_s : b.time_unix_s;
  std::optional<double> last_mono = folded ? b.last_monotonic_s : b.monotonic_s;
  if (a.time_unix_s && last_unix)
    return Span{static_cast<double>(*a.time_unix_s), static_cast<double>(*last_unix), true};
  if (a.monotonic_s && last_mono) return Span{*a.monotonic_s, *last_mono, false};
  return std::nullopt;
}

std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace gt
