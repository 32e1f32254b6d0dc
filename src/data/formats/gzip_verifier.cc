// gzip (RFC 1952): 10-byte header (1f 8b, method 8, flags, mtime, xfl, os),
// optional extra field, file name, comment and header CRC16, the deflate
// stream, then an 8-byte trailer: CRC32 and ISIZE (length mod 2^32) of the
// uncompressed data. Python's gzip module (which SpecForge uses) writes one
// member, with the file name field when given a path. Nothing indexes the
// stream, so a truncated file is only certain once inflated: quick mode
// inflates files up to 1 MiB and, for larger ones, checks that ISIZE is
// plausible for the compressed size: a cut stream ends in 4 arbitrary bytes,
// which fall in the plausible range with probability about size*1032/2^32,
// so this catches most cuts of small files and about half at 2 MB; --deep
// is the real check. A zero-filled tail shows as a zero
// trailer. Deep mode inflates everything (zlib) and compares CRC32 (ISA-L)
// and length, and, when the payload is a zip (torch), that it ends with an
// end-of-central-directory record.
#include "data/formats/gzip_verifier.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace gt {
namespace {

// Length of the gzip header in `h`, or nullopt (problem added).
std::optional<uint64_t> header_length(const std::vector<uint8_t>& h, uint64_t size,
                                      FileCheck& check) {
  if (h.size() < 10) {
    add_problem(check, ProblemCode::kTruncated,
                "truncated at byte " + std::to_string(size) + " inside the 10-byte gzip header");
    return std::nullopt;
  }
  uint8_t flags = h[3];
  if (flags & 0xE0) {
    add_problem(check, ProblemCode::kMalformed, "gzip header has reserved flag bits set");
    return std::nullopt;
  }
  uint64_t pos = 10;
  if (flags & 4) pos = h.size() >= 12 ? 12 + le16(&h[10]) : UINT64_MAX;
  for (uint8_t bit : {8, 16}) {  // FNAME, FCOMMENT: zero-terminated
    if (!(flags & bit) || pos == UINT64_MAX) continue;
    if (pos >= h.size()) {  // the field starts beyond what was read
      pos = UINT64_MAX;
      continue;
    }
    const void* nul = std::memchr(&h[pos], 0, h.size() - pos);
    pos = nul ? static_cast<const uint8_t*>(nul) - h.data() + 1 : UINT64_MAX;
  }
  if ((flags & 2) && pos != UINT64_MAX) pos += 2;
  // The whole file was read and the header (or the trailer after it) does
  // not fit: cut short. Otherwise a header longer than the 64 KiB read.
  if (size <= h.size() && (pos == UINT64_MAX || pos + 8 > size)) {
    add_problem(
        check, ProblemCode::kTruncated,
        "truncated at byte " + std::to_string(size) + ": the gzip header and trailer do not fit");
    return std::nullopt;
  }
  if (pos == UINT64_MAX || pos + 8 > size) {
    add_problem(check, ProblemCode::kMalformed,
                "gzip header does not end within the first " + std::to_string(h.size()) + " bytes");
    return std::nullopt;
  }
  return pos;
}

class GzipConsumer : public StreamConsumer {
 public:
  GzipConsumer(uint64_t data_begin, uint64_t size) : begin_(data_begin), size_(size) {
    inflateInit2(&z_, -15);
  }
  ~GzipConsumer() override { inflateEnd(&z_); }
  void feed(uint64_t offset, const uint8_t* p, size_t n) override;
  void finish(FileCheck& check) override;

 private:
  void after_end(const uint8_t* p, size_t n) {
    size_t k = std::min(n, 8 - std::min<size_t>(8, trailer_len_));
    if (k > 0) std::memcpy(trailer_ + trailer_len_, p, k);
    trailer_len_ += k;
    extra_ += n - k;
    if (extra_ == n - k && n > k) extra_first_ = p[k];
  }
  void output(size_t got) {
    if (out_bytes_ == 0 && got >= 4) std::memcpy(head_, out_, 4);
    crc_ = crc32_update(crc_, out_, got);
    out_bytes_ += got;
    if (got >= 22)
      std::memcpy(tail_, out_ + got - 22, 22);
    else if (got > 0) {
      std::memmove(tail_, tail_ + got, 22 - got);
      std::memcpy(tail_ + 22 - got, out_, got);
    }
  }

  uint64_t begin_, size_;
  z_stream z_{};
  bool done_ = false;
  std::optional<std::string> error_;
  uint64_t error_at_ = 0, consumed_ = 0;
  uint32_t crc_ = 0;
  uint64_t out_bytes_ = 0;
  uint8_t trailer_[8] = {};
  size_t trailer_len_ = 0;
  uint64_t extra_ = 0;
  uint8_t extra_first_ = 0;
  uint8_t head_[4] = {}, tail_[22] = {};
  uint8_t out_[256 * 1024];
};

void GzipConsumer::feed(uint64_t offset, const uint8_t* p, size_t n) {
  if (offset + n <= begin_) return;
  if (offset < begin_) {
    p += begin_ - offset;
    n -= begin_ - offset;
  }
  if (error_) return;
  if (done_) return after_end(p, n);
  z_.next_in = const_cast<uint8_t*>(p);
  z_.avail_in = static_cast<uInt>(n);
  while (z_.avail_in > 0) {
    z_.next_out = out_;
    z_.avail_out = sizeof out_;
    uInt before = z_.avail_in;
    int rc = inflate(&z_, Z_NO_FLUSH);
    consumed_ += before - z_.avail_in;
    output(sizeof out_ - z_.avail_out);
    if (rc == Z_STREAM_END) {
      done_ = true;
      after_end(z_.next_in, z_.avail_in);
      return;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error_ = z_.msg ? z_.msg : "inflate error";
      error_at_ = begin_ + consumed_;
      return;
    }
  }
}

void GzipConsumer::finish(FileCheck& check) {
  if (error_)
    return add_problem(
        check, ProblemCode::kChecksum,
        "deflate data damaged near byte " + std::to_string(error_at_) + " (" + *error_ + ")");
  if (!done_)
    return add_problem(check, ProblemCode::kTruncated,
                       "truncated at byte " + std::to_string(size_) +
                           ": the deflate stream has no end and no trailer");
  if (trailer_len_ < 8)
    return add_problem(check, ProblemCode::kTruncated,
                       "truncated at byte " + std::to_string(size_) + ": gzip trailer has " +
                           std::to_string(trailer_len_) + " of 8 bytes");
  uint32_t want_crc = le32(trailer_), want_len = le32(trailer_ + 4);
  if (want_crc != crc_)
    return add_problem(check, ProblemCode::kChecksum,
                       "gzip CRC32 want " + hex32(want_crc) + ", got " + hex32(crc_));
  if (want_len != static_cast<uint32_t>(out_bytes_))
    return add_problem(check, ProblemCode::kChecksum,
                       "gzip length want " + std::to_string(want_len) + " (mod 2^32), got " +
                           std::to_string(out_bytes_));
  if (extra_ > 0 && extra_first_ != 0x1f)
    return add_problem(check, ProblemCode::kSizeMismatch,
                       std::to_string(extra_) + " bytes after the end of the gzip stream");
  if (out_bytes_ >= 22 && std::memcmp(head_, "PK\x03\x04", 4) == 0 &&
      std::memcmp(tail_, "PK\x05\x06", 4) != 0)
    add_problem(check, ProblemCode::kTruncated,
                "the zip inside the gzip stream (" + std::to_string(out_bytes_) +
                    " bytes) has no end-of-central-directory record");
}

}  // namespace

void verify_gzip(const ByteSource& src, bool deep, FileCheck& check,
                 std::vector<std::unique_ptr<StreamConsumer>>& consumers) {
  check.format = "gzip";
  const uint64_t size = src.size();
  std::optional<std::vector<uint8_t>> head = read_or_note(src, 0, 64 * 1024, check);
  if (!head) return;
  std::optional<uint64_t> hlen = header_length(*head, size, check);
  if (!hlen) return;
  std::optional<std::vector<uint8_t>> trailer = read_or_note(src, size - 8, 8, check);
  if (!trailer) return;
  if (all_zero(trailer->data(), 8)) {
    add_problem(check, ProblemCode::kZeroFilled, "the gzip trailer (last 8 bytes) is zeros");
    return;
  }
  const uint64_t compressed = size - *hlen - 8;
  if (deep || size <= kQuickInflateBytes) {
    consumers.push_back(std::make_unique<GzipConsumer>(*hlen, size));
    return;
  }
  // Deflate expands by at most 5 bytes per 64 KiB stored block and
  // compresses at most 1032:1; beyond 4 GiB the length wraps, so only
  // streams whose output must stay below 4 GiB are judged.
  uint64_t isize = le32(trailer->data() + 4);
  uint64_t min_out = compressed - std::min(compressed, 5 * (compressed / 65535 + 1) + 2);
  if (compressed * 1032 < (1ull << 32) && (isize < min_out || isize > compressed * 1032))
    add_problem(check, ProblemCode::kTruncated,
                "gzip trailer length " + std::to_string(isize) + " is impossible for " +
                    std::to_string(compressed) +
                    " compressed bytes: no trailer, truncated at byte " + std::to_string(size) +
                    " (--deep inflates to be sure)");
}

}  // namespace gt
