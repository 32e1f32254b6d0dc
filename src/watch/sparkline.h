// A short history per GPU for the sparklines: a fixed ring of samples, so
// memory stays bounded however long watch runs (kHistoryPoints per series,
// about 4 minutes at the default 2 s interval).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gt {

inline constexpr size_t kHistoryPoints = 120;

/// A ring of the last kHistoryPoints values; an unknown value stays unknown
/// (a gap in the sparkline, never 0).
class Series {
 public:
  void push(std::optional<double> v);
  size_t size() const { return size_; }
  /// Oldest first; at most `n` of the newest.
  std::vector<std::optional<double>> last(size_t n) const;
  std::optional<double> latest() const;

 private:
  std::array<std::optional<double>, kHistoryPoints> ring_{};
  size_t next_ = 0, size_ = 0;
};

/// "▁▂▃▅▇" over `values` scaled to [0, full]; a space for an unknown point.
/// Values are clamped to the scale. UTF-8, one glyph per value.
std::string sparkline(const std::vector<std::optional<double>>& values, double full);

}  // namespace gt
