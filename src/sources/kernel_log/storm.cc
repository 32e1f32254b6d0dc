// Folding by (kind, code, bus id and MIG instance, boot); see storm.h for the rule.
#include "sources/kernel_log/storm.h"

#include <algorithm>
#include <functional>

namespace gt::klog {
namespace {

constexpr size_t kMaxRememberedHashes = 1u << 18;

std::string key_of(const KernelLogEvent& e) {
  std::string k = event_kind_name(e.kind);
  k += '|';
  if (e.code) k += std::to_string(*e.code);
  k += '|';
  k += e.pci_bus_id.value_or("");
  if (e.gpu_instance_id) k += "/" + std::to_string(*e.gpu_instance_id);
  k += '|';
  k += log_boot_name(e.boot);
  return k;
}

struct Times {
  std::optional<double> mono;
  std::optional<int64_t> unix_s;
  std::optional<std::string> text;
};

/// The times of the last line folded into `e`: its last_*, else its own.
Times last_of(const KernelLogEvent& e) {
  if (e.count > 1) return {e.last_monotonic_s, e.last_time_unix_s, e.last_time_text};
  return {e.monotonic_s, e.time_unix_s, e.time_text};
}

/// True when `a` is known to be earlier than `b`.
bool earlier(const Times& a, const Times& b) {
  if (a.unix_s && b.unix_s) return *a.unix_s < *b.unix_s;
  if (!a.unix_s && !b.unix_s && a.mono && b.mono) return *a.mono < *b.mono;
  return false;
}

/// Lines come in log order, so the newest line's times are the last; an
/// already folded event from another source only moves them later.
void update_last(KernelLogEvent& to, const KernelLogEvent& e) {
  Times now = last_of(to), next = last_of(e);
  if (e.count > 1 && earlier(next, now)) return;
  to.last_monotonic_s = next.mono;
  to.last_time_unix_s = next.unix_s;
  to.last_time_text = next.text;
}

}  // namespace

std::pair<size_t, bool> StormFolder::add(KernelLogEvent e) {
  auto [it, fresh] = index_.try_emplace(key_of(e), events_.size());
  if (!fresh) {
    fold(it->second, e);
    return {it->second, false};
  }
  if (e.distinct_details.empty()) e.distinct_details.push_back(e.detail);
  events_.push_back(std::move(e));
  dropped_.emplace_back();
  return {events_.size() - 1, true};
}

void StormFolder::fold(size_t into, const KernelLogEvent& e) {
  KernelLogEvent& to = events_[into];
  update_last(to, e);
  to.count += e.count;
  if (e.distinct_details.empty()) note_detail(into, e.detail);
  for (const std::string& d : e.distinct_details) note_detail(into, d);
  to.distinct_details_dropped += e.distinct_details_dropped;
  if (e.cancelled_by_code && !to.cancelled_by_code) to.cancelled_by_code = e.cancelled_by_code;
}

void StormFolder::note_detail(size_t into, const std::string& detail) {
  KernelLogEvent& to = events_[into];
  auto& kept = to.distinct_details;
  if (std::find(kept.begin(), kept.end(), detail) != kept.end()) return;
  if (kept.size() < kMaxDistinctDetails) {
    kept.push_back(detail);
    return;
  }
  uint64_t h = std::hash<std::string>{}(detail);
  auto& seen = dropped_[into];
  if (seen.count(h)) return;
  if (remembered_ < kMaxRememberedHashes) {
    seen.insert(h);
    ++remembered_;
  }
  ++to.distinct_details_dropped;
}

void StormFolder::erase(size_t index) {
  remembered_ -= dropped_[index].size();
  events_.erase(events_.begin() + static_cast<long>(index));
  dropped_.erase(dropped_.begin() + static_cast<long>(index));
  index_.clear();
  for (size_t i = 0; i < events_.size(); ++i) index_.emplace(key_of(events_[i]), i);
}

std::vector<KernelLogEvent> fold_events(std::vector<KernelLogEvent> events) {
  StormFolder folder;
  for (KernelLogEvent& e : events) folder.add(std::move(e));
  return folder.take();
}

}  // namespace gt::klog
