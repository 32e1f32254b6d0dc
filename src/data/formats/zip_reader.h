// The zip central directory, read from the end of the file with a few small
// preads: the end-of-central-directory record (EOCD), the zip64 locator and
// record when present, then the central directory itself. Nothing else of
// the file is read, which is what makes quick mode close to a stat walk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"

namespace gt {

struct ZipEntry {
  std::string name;
  uint16_t flags = 0;   ///< bit 3: sizes and CRC follow the data in a data descriptor
  uint16_t method = 0;  ///< 0 stored, 8 deflated
  uint32_t crc32 = 0;
  uint64_t compressed_bytes = 0;
  uint64_t uncompressed_bytes = 0;
  uint64_t local_header_offset = 0;
  bool zip64 = false;  ///< carries a zip64 extra field (sizes or offset >= 4 GiB)
};

struct ZipDirectory {
  std::vector<ZipEntry> entries;  ///< in central-directory order
  uint64_t cd_offset = 0;
  uint64_t cd_bytes = 0;
};

/// Upper bound on a central directory we agree to read (absurd sizes in a
/// damaged EOCD must not become huge allocations).
constexpr uint64_t kMaxCentralDirectoryBytes = 256ull << 20;

/// Reads the central directory. On failure appends one problem to `check`
/// (truncated: no EOCD; zero-filled: the tail is zeros; malformed: fields
/// that point outside the file) or sets check.io_error, and returns nullopt.
std::optional<ZipDirectory> read_zip_directory(const ByteSource& src, FileCheck& check);

}  // namespace gt
