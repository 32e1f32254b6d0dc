// Zip structure as torch.save, NumPy and Python's zipfile write it.
//
// torch.save (>= 1.6, bundled miniz with MZ_ZIP_FLAG_WRITE_ZIP64) always ends
// with a zip64 EOCD record (56 B), a zip64 locator (20 B) and a classic EOCD
// (22 B, no comment): the last 98 bytes, even for a 2 KB file. Entries carry
// a zip64 extra field only when a record is >= 4 GiB or starts beyond 4 GiB.
// NumPy's savez goes through Python's zipfile, which writes zip64 records
// only when needed, so a small .npz ends in a plain 22-byte EOCD. A comment
// may follow the EOCD (up to 65535 bytes), so the record is searched for
// backwards from the end and accepted only if its comment length reaches
// exactly the end of the file. The central directory is written last, so a
// file cut anywhere has no EOCD: that is the truncation signature.
#include "data/formats/zip_reader.h"

#include <algorithm>

namespace gt {
namespace {

constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr size_t kEocdBytes = 22;
constexpr size_t kMaxTail = kEocdBytes + 65535 + 20;

std::string at(uint64_t offset) { return "at byte " + std::to_string(offset); }

// Zero bytes at the end of a file: a crash leaves whole pages of them where
// the central directory should be. Counted back past the tail already read,
// a MiB at a time, up to kMaxZeroScan.
constexpr uint64_t kMaxZeroScan = 16u << 20;

struct ZeroRun {
  uint64_t bytes = 0;
  bool capped = false;  ///< more may precede: the count stopped at kMaxZeroScan
};

size_t zero_suffix(const uint8_t* p, size_t len) {
  size_t n = 0;
  while (n < len && p[len - 1 - n] == 0) ++n;
  return n;
}

// `tail` is the file's last bytes; nullopt on an I/O error (noted).
std::optional<ZeroRun> trailing_zeros(const ByteSource& src, std::span<const uint8_t> tail,
                                      FileCheck& check) {
  ZeroRun run{zero_suffix(tail.data(), tail.size()), false};
  uint64_t start = src.size() - tail.size();  // where the zeros counted so far begin
  if (run.bytes < tail.size()) return run;
  while (start > 0) {
    if (run.bytes >= kMaxZeroScan) return ZeroRun{run.bytes, true};
    const size_t len = size_t(std::min<uint64_t>(start, 1u << 20));
    std::optional<std::vector<uint8_t>> chunk = read_or_note(src, start - len, len, check);
    if (!chunk) return std::nullopt;
    const size_t z = zero_suffix(chunk->data(), chunk->size());
    run.bytes += z;
    if (z < chunk->size()) break;
    start -= len;
  }
  return run;
}

// "last 1782 bytes are zero (from byte 98218)".
std::string zero_run_text(const ZeroRun& z, uint64_t size) {
  if (z.capped)
    return "the last " + std::to_string(z.bytes) + " bytes read are all zero (more were not read)";
  if (z.bytes == size) return "all " + std::to_string(size) + " bytes are zero";
  return "last " + std::to_string(z.bytes) + " bytes are zero (from byte " +
         std::to_string(size - z.bytes) + ")";
}

// Finds the classic EOCD in `tail` (the last bytes of the file); returns its
// index in `tail` or nullopt.
std::optional<size_t> find_eocd(std::span<const uint8_t> tail) {
  if (tail.size() < kEocdBytes) return std::nullopt;
  for (size_t i = tail.size() - kEocdBytes + 1; i-- > 0;) {
    if (le32(&tail[i]) != kEocdSig) continue;
    if (i + kEocdBytes + le16(&tail[i + 20]) == tail.size()) return i;
  }
  return std::nullopt;
}

// Applies a zip64 extra field (id 1) to the fields that were saturated.
void apply_zip64_extra(const uint8_t* extra, size_t len, ZipEntry& e) {
  size_t i = 0;
  while (i + 4 <= len) {
    uint16_t id = le16(extra + i), n = le16(extra + i + 2);
    const uint8_t* p = extra + i + 4;
    size_t end = std::min(len, i + 4 + n);
    if (id == 1) {
      e.zip64 = true;
      size_t j = i + 4;
      auto take = [&](uint64_t& field) {
        if (field == 0xFFFFFFFFu && j + 8 <= end) {
          field = le64(extra + j);
          j += 8;
        }
      };
      take(e.uncompressed_bytes);
      take(e.compressed_bytes);
      take(e.local_header_offset);
      (void)p;
    }
    i += 4 + n;
  }
}

// Parses the central directory bytes into entries; false with a problem.
bool parse_central(std::span<const uint8_t> cd, uint64_t cd_offset, uint64_t count,
                   ZipDirectory& dir, FileCheck& check) {
  size_t i = 0;
  dir.entries.reserve(std::min<uint64_t>(count, 4096));  // grows past that as entries parse
  for (uint64_t k = 0; k < count; ++k) {
    if (i + 46 > cd.size() || le32(&cd[i]) != kCentralSig) {
      check.problems.push_back(
          {ProblemCode::kMalformed, "central directory entry " + std::to_string(k) + " " +
                                        at(cd_offset + i) + ": bad signature"});
      return false;
    }
    ZipEntry e;
    e.flags = le16(&cd[i + 8]);
    e.method = le16(&cd[i + 10]);
    e.crc32 = le32(&cd[i + 16]);
    e.compressed_bytes = le32(&cd[i + 20]);
    e.uncompressed_bytes = le32(&cd[i + 24]);
    size_t name_len = le16(&cd[i + 28]), extra_len = le16(&cd[i + 30]),
           comment_len = le16(&cd[i + 32]);
    e.local_header_offset = le32(&cd[i + 42]);
    size_t var = name_len + extra_len + comment_len;
    if (i + 46 + var > cd.size()) {
      check.problems.push_back(
          {ProblemCode::kMalformed,
           "central directory entry " + std::to_string(k) + ": runs past the directory"});
      return false;
    }
    e.name.assign(reinterpret_cast<const char*>(&cd[i + 46]), name_len);
    apply_zip64_extra(&cd[i + 46 + name_len], extra_len, e);
    dir.entries.push_back(std::move(e));
    i += 46 + var;
  }
  return true;
}

}  // namespace

std::optional<ZipDirectory> read_zip_directory(const ByteSource& src, FileCheck& check) {
  const uint64_t size = src.size();
  uint64_t tail_len = std::min<uint64_t>(size, kMaxTail);
  // Most zips have no comment: try the last 98 bytes first, then the rest.
  // The bytes are views (view_or_note): a prefetched file's tail is not copied.
  std::vector<uint8_t> tail_scratch, loc_scratch, rec_scratch, cd_scratch;
  std::optional<std::span<const uint8_t>> tail =
      view_or_note(src, size - std::min<uint64_t>(size, 98), 98, tail_scratch, check);
  if (!tail) return std::nullopt;
  std::optional<size_t> pos = find_eocd(*tail);
  if (!pos && tail_len > tail->size()) {
    tail = view_or_note(src, size - tail_len, tail_len, tail_scratch, check);
    if (!tail) return std::nullopt;
    pos = find_eocd(*tail);
  }
  if (!pos) {
    // An EOCD whose comment does not reach the end: bytes were appended.
    for (size_t i = tail->size() >= kEocdBytes ? tail->size() - kEocdBytes + 1 : 0; i-- > 0;) {
      if (le32(&(*tail)[i]) != kEocdSig) continue;
      uint64_t end = i + kEocdBytes + le16(&(*tail)[i + 20]);
      if (end >= tail->size()) continue;
      check.problems.push_back({ProblemCode::kSizeMismatch,
                                std::to_string(tail->size() - end) +
                                    " bytes after the end-of-central-directory record (at byte " +
                                    std::to_string(size - tail->size() + i) + ")"});
      return std::nullopt;
    }
    size_t last = std::min<size_t>(tail->size(), kEocdBytes);
    if (!all_zero(tail->data() + tail->size() - last, last)) {
      check.problems.push_back(
          {ProblemCode::kTruncated,
           "no end-of-central-directory record (truncated at byte " + std::to_string(size) + ")"});
      return std::nullopt;
    }
    std::optional<ZeroRun> zeros = trailing_zeros(src, *tail, check);
    if (!zeros) return std::nullopt;
    check.problems.push_back(
        {ProblemCode::kZeroFilled, zero_run_text(*zeros, size) + ": no end-of-central-directory"});
    return std::nullopt;
  }
  const uint64_t eocd_off = size - tail->size() + *pos;
  const uint8_t* e = tail->data() + *pos;
  uint64_t count = le16(e + 10), cd_bytes = le32(e + 12), cd_off = le32(e + 16);
  uint64_t cd_end_limit = eocd_off;
  // A zip64 locator sits just before the EOCD (always with torch.save).
  if (eocd_off >= 20) {
    std::optional<std::span<const uint8_t>> loc =
        view_or_note(src, eocd_off - 20, 20, loc_scratch, check);
    if (!loc) return std::nullopt;
    if (loc->size() == 20 && le32(loc->data()) == kZip64LocatorSig) {
      uint64_t z64_off = le64(loc->data() + 8);
      // The record must end before the locator (overflow-safe: the offset
      // is any 64-bit value in a damaged file).
      std::optional<std::span<const uint8_t>> rec =
          range_within(z64_off, 56, eocd_off - 20)
              ? view_or_note(src, z64_off, 56, rec_scratch, check)
              : std::optional<std::span<const uint8_t>>(std::span<const uint8_t>());
      if (!rec) return std::nullopt;
      if (rec->size() != 56 || le32(rec->data()) != kZip64EocdSig) {
        check.problems.push_back(
            {ProblemCode::kMalformed, "zip64 locator points " + at(z64_off) +
                                          ", where there is no zip64 end-of-central-directory"});
        return std::nullopt;
      }
      count = le64(rec->data() + 32);
      cd_bytes = le64(rec->data() + 40);
      cd_off = le64(rec->data() + 48);
      cd_end_limit = z64_off;
    }
  }
  if (cd_off > cd_end_limit || cd_bytes > cd_end_limit - cd_off) {
    check.problems.push_back(
        {ProblemCode::kMalformed, "central directory (" + std::to_string(cd_bytes) + " bytes " +
                                      at(cd_off) + ") lies outside the file of " +
                                      std::to_string(size) + " bytes"});
    return std::nullopt;
  }
  if (cd_bytes > kMaxCentralDirectoryBytes || count > cd_bytes / 46 + 1) {
    check.problems.push_back({ProblemCode::kMalformed, "central directory claims " +
                                                           std::to_string(count) + " entries in " +
                                                           std::to_string(cd_bytes) + " bytes"});
    return std::nullopt;
  }
  std::optional<std::span<const uint8_t>> cd =
      view_or_note(src, cd_off, cd_bytes, cd_scratch, check);
  if (!cd) return std::nullopt;
  ZipDirectory dir;
  dir.cd_offset = cd_off;
  dir.cd_bytes = cd_bytes;
  if (!parse_central(*cd, cd_off, count, dir, check)) return std::nullopt;
  return dir;
}

}  // namespace gt
