// The data fuzz targets: one verifier entry point (verify_source, the one the
// tool runs) fed in-memory bytes under a file name that selects the format,
// in quick and in deep mode. The problem list must always come out; a
// "malformed" or "truncated" verdict is a pass, a crash or a hang is not.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

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
  // The same bytes as a file: FileSource prefetches a head and a tail and
  // serves later reads from them, a path memory sources never take.
  int fd = memfd_create("gt-fuzz", MFD_CLOEXEC);
  if (fd < 0) return;
  if (size == 0 || write(fd, data, size) == static_cast<ssize_t>(size)) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    for (bool deep : {false, true}) {
      FileCheck check = verify_path(path, VerifyOptions{deep}, buffer);
      (void)check;
    }
  }
  close(fd);
}

}  // namespace gt
