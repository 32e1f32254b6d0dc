// CPU lists as the kernel writes them: "0-31,64-95" in /proc/PID/status
// (Cpus_allowed_list) and /sys/devices/system/node/nodeN/cpulist
// (bitmap_print_to_pagebuf's list format: ascending ranges, "a-b" or "a",
// separated by commas; an empty list is an empty line, as a memory-only
// NUMA node has).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gt {

/// A set of CPU ids as ascending, disjoint, non-adjacent ranges.
struct CpuList {
  struct Range {
    uint32_t first = 0;
    uint32_t last = 0;  ///< inclusive
    bool operator==(const Range&) const = default;
  };
  std::vector<Range> ranges;

  bool empty() const { return ranges.empty(); }
  uint64_t count() const;
  bool intersects(const CpuList& other) const;
  /// Every CPU of `other` is in this list.
  bool contains(const CpuList& other) const;
  bool operator==(const CpuList&) const = default;
};

/// The largest CPU id accepted (the kernel's NR_CPUS is at most 8192 on
/// x86-64 and arm64; a larger id is garbage, not a CPU).
constexpr uint32_t kMaxCpuId = 1u << 16;

/// Parses a kernel CPU list; surrounding whitespace (the trailing newline)
/// is ignored and "" is the empty list. Ranges may come in any order and
/// overlap (they are merged). nullopt for anything else: a reversed range,
/// a number past kMaxCpuId, a stray character, more than 4096 pieces.
std::optional<CpuList> parse_cpu_list(std::string_view text);

/// The canonical list text: "0-31,64-95"; "" for the empty list.
std::string format_cpu_list(const CpuList& cpus);

}  // namespace gt
