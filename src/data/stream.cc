#include "data/stream.h"

#include <fcntl.h>
#ifdef GT_CRC32_ZLIB
#include <zlib.h>
#else
#include <isa-l/crc.h>
#endif

#include <algorithm>
#include <cstdio>

namespace gt {

uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  // crc32_gzip_refl takes and returns the finalised CRC, like zlib's crc32().
  // The portable build has no static ISA-L (Debian ships only the .so) and
  // uses zlib's: the same CRC, slower on large files.
  while (n > 0) {
    size_t k = std::min<size_t>(n, 1u << 30);
#ifdef GT_CRC32_ZLIB
    crc = static_cast<uint32_t>(::crc32(crc, p, static_cast<uInt>(k)));
#else
    crc = crc32_gzip_refl(crc, p, k);
#endif
    p += k;
    n -= k;
  }
  return crc;
}

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08X", v);
  return b;
}

bool stream_source(const ByteSource& src, std::vector<uint8_t>& buffer,
                   const std::vector<StreamConsumer*>& consumers, FileCheck& check) {
  // Small files get a small buffer: fuzzing thousands of them stays cheap.
  size_t want = std::min<uint64_t>(kStreamBufferBytes, (src.size() + 4095) / 4096 * 4096);
  // A source that holds all its bytes (a small file, read whole by
  // prefetch) is fed from there in the same chunks, not copied.
  if (const uint8_t* held = src.held(0, src.size())) {
    for (uint64_t offset = 0; offset < src.size(); offset += want) {
      const size_t n = std::min<uint64_t>(want, src.size() - offset);
      for (StreamConsumer* c : consumers) c->feed(offset, held + offset, n);
      check.bytes_read += n;
    }
    for (StreamConsumer* c : consumers) c->finish(check);
    return true;
  }
  if (buffer.size() < want) buffer.resize(want);
  uint64_t offset = 0;
  while (offset < src.size()) {
    Result<size_t> n = src.read_at(offset, buffer.data(), buffer.size());
    if (!n) {
      check.io_error = n.error().message;
      return false;
    }
    if (*n == 0) break;  // the file shrank under us: consumers see a short file
    for (StreamConsumer* c : consumers) c->feed(offset, buffer.data(), *n);
    offset += *n;
    check.bytes_read += *n;
  }
  for (StreamConsumer* c : consumers) c->finish(check);
  return true;
}

ZeroBlockScanner::ZeroBlockScanner(std::vector<Range> ranges)
    : ranges_(std::move(ranges)), hits_(ranges_.size()) {
  for (size_t i = 1; i < ranges_.size() && in_order_; ++i)
    in_order_ = ranges_[i - 1].end <= ranges_[i].begin;
}

void ZeroBlockScanner::feed(uint64_t offset, const uint8_t* p, size_t n) {
  constexpr uint64_t kBlock = 4096;
  const uint64_t chunk_end = offset + n;
  // Ranges in file order (every verifier's): skip the finished ones and stop
  // at the first past this chunk, so the work per chunk does not grow with
  // the number of ranges.
  if (in_order_)
    while (first_ < ranges_.size() && ranges_[first_].end <= offset) ++first_;
  for (size_t i = in_order_ ? first_ : 0; i < ranges_.size(); ++i) {
    const Range& r = ranges_[i];
    if (in_order_ && r.begin >= chunk_end) break;
    uint64_t lo = std::max(r.begin, offset), hi = std::min(r.end, chunk_end);
    if (lo >= hi) continue;
    // Whole aligned blocks inside both the range and this chunk.
    for (uint64_t b = (lo + kBlock - 1) / kBlock * kBlock; b + kBlock <= hi; b += kBlock) {
      if (!all_zero(p + (b - offset), kBlock)) continue;
      if (!hits_[i].first) hits_[i].first = b;
      ++hits_[i].count;
    }
  }
}

void ZeroBlockScanner::finish(FileCheck& check) {
  if (!report) return;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    if (!hits_[i].first) continue;
    check.problems.push_back(
        {ProblemCode::kZeroFilled, ranges_[i].label + ": " + std::to_string(hits_[i].count) +
                                       " all-zero 4 KiB block(s), the first at byte " +
                                       std::to_string(*hits_[i].first)});
  }
}

}  // namespace gt
