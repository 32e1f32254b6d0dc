#include "watch/sparkline.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gt {

void Series::push(std::optional<double> v) {
  ring_[next_] = v;
  next_ = (next_ + 1) % kHistoryPoints;
  size_ = std::min(size_ + 1, kHistoryPoints);
}

std::vector<std::optional<double>> Series::last(size_t n) const {
  n = std::min(n, size_);
  std::vector<std::optional<double>> out;
  out.reserve(n);
  for (size_t k = n; k > 0; --k)
    out.push_back(ring_[(next_ + kHistoryPoints - k) % kHistoryPoints]);
  return out;
}

std::optional<double> Series::latest() const {
  if (size_ == 0) return std::nullopt;
  return ring_[(next_ + kHistoryPoints - 1) % kHistoryPoints];
}

std::string sparkline(const std::vector<std::optional<double>>& values, double full) {
  static const char* const kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::string out;
  for (const std::optional<double>& v : values) {
    if (!v || !std::isfinite(*v) || full <= 0) {
      out += ' ';
      continue;
    }
    const double share = std::clamp(*v / full, 0.0, 1.0);
    out += kBars[std::min(7, static_cast<int>(share * 7.999))];
  }
  return out;
}

}  // namespace gt
