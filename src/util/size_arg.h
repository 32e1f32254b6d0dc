// A size on the command line: "1GiB", "512MiB", "64M", "4096" (bytes).
// Binary units (K/KiB, M/MiB, G/GiB, T/TiB, any case; a bare K/M/G/T is
// binary too, as nvidia-smi and `df -h` mean them). Zero, a fraction, an
// unknown unit or an overflow is an error quoting the text.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace gt {

Result<uint64_t> parse_size_bytes(const std::string& text);

}  // namespace gt
