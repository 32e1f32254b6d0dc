// GPU index lists as people write them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gt {

/// "0-7", "0, 2, 5-6": indices (any order, duplicates ignored) as a short list.
std::string format_index_list(std::vector<uint32_t> indices);

}  // namespace gt
