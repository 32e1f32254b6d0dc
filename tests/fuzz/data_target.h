// The data fuzz targets: one verifier entry point (verify_source, the one the
// tool runs) fed in-memory bytes under a file name that selects the format,
// in quick and in deep mode. The problem list must always come out; a
// "malformed" or "truncated" verdict is a pass, a crash or a hang is not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/byte_source.h"
#include "data/verify.h"

namespace gt {

inline void verify_both_modes(const uint8_t* data, size_t size, const char* name) {
  MemorySource src(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<uint8_t> buffer;
  for (bool deep : {false, true}) {
    FileCheck check = verify_source(src, name, VerifyOptions{deep}, buffer);
    (void)check;
  }
}

}  // namespace gt
