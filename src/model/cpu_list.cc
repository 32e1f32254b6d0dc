#include "model/cpu_list.h"

#include <algorithm>
#include <charconv>

namespace gt {
namespace {

constexpr size_t kMaxPieces = 4096;

std::string_view trim_blanks(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::optional<uint32_t> cpu_id(std::string_view s) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > kMaxCpuId)
    return std::nullopt;
  return v;
}

std::optional<CpuList::Range> parse_range(std::string_view piece) {
  const size_t dash = piece.find('-');
  std::optional<uint32_t> first = cpu_id(piece.substr(0, dash));
  std::optional<uint32_t> last =
      dash == std::string_view::npos ? first : cpu_id(piece.substr(dash + 1));
  if (!first || !last || *last < *first) return std::nullopt;
  return CpuList::Range{*first, *last};
}

/// Sorts and merges overlapping or adjacent ranges.
void normalize(std::vector<CpuList::Range>& r) {
  std::sort(r.begin(), r.end(),
            [](const CpuList::Range& a, const CpuList::Range& b) { return a.first < b.first; });
  std::vector<CpuList::Range> out;
  for (const CpuList::Range& x : r) {
    if (!out.empty() && x.first <= out.back().last + 1)
      out.back().last = std::max(out.back().last, x.last);
    else
      out.push_back(x);
  }
  r = std::move(out);
}

}  // namespace

uint64_t CpuList::count() const {
  uint64_t n = 0;
  for (const Range& r : ranges) n += uint64_t{r.last} - r.first + 1;
  return n;
}

bool CpuList::intersects(const CpuList& other) const {
  size_t i = 0, j = 0;
  while (i < ranges.size() && j < other.ranges.size()) {
    const Range& a = ranges[i];
    const Range& b = other.ranges[j];
    if (a.last < b.first)
      ++i;
    else if (b.last < a.first)
      ++j;
    else
      return true;
  }
  return false;
}

bool CpuList::contains(const CpuList& other) const {
  for (const Range& b : other.ranges) {
    const bool inside = std::any_of(ranges.begin(), ranges.end(), [&](const Range& a) {
      return a.first <= b.first && b.last <= a.last;
    });
    if (!inside) return false;
  }
  return true;
}

std::optional<CpuList> parse_cpu_list(std::string_view text) {
  text = trim_blanks(text);
  CpuList out;
  if (text.empty()) return out;
  size_t pieces = 0;
  while (true) {
    const size_t comma = text.find(',');
    if (++pieces > kMaxPieces) return std::nullopt;
    std::optional<CpuList::Range> r = parse_range(text.substr(0, comma));
    if (!r) return std::nullopt;
    out.ranges.push_back(*r);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  normalize(out.ranges);
  return out;
}

std::string format_cpu_list(const CpuList& cpus) {
  std::string out;
  for (const CpuList::Range& r : cpus.ranges) {
    if (!out.empty()) out += ',';
    out += std::to_string(r.first);
    if (r.last != r.first) out += '-' + std::to_string(r.last);
  }
  return out;
}

}  // namespace gt
