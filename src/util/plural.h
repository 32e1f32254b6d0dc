// Counted nouns in report text: "1 GPU", "2 GPUs", never "1 GPUs" or "(s)".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gt {

/// `one` when n is 1, else `many`: plural(n, "GPU", "GPUs").
inline std::string plural(size_t n, std::string_view one, std::string_view many) {
  return std::string(n == 1 ? one : many);
}

/// "1 GPU", "3 GPUs": the count and its noun.
inline std::string count_of(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + plural(n, one, many);
}

}  // namespace gt
