#include "util/index_list.h"

#include <algorithm>

namespace gt {

std::string format_index_list(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") +
           (j > i ? std::to_string(v[i]) + "-" + std::to_string(v[j]) : std::to_string(v[i]));
    i = j + 1;
  }
  return out;
}

}  // namespace gt
