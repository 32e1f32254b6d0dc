// Inflating a compressed kernel log: zlib (gzip, multi-member), liblzma
// (xz, concatenated streams) and libzstd (frames one after the other), each
// streamed into a text that keeps only the last `cap` bytes.
#include "sources/kernel_log/compressed.h"

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <vector>

namespace gt::klog {
namespace {

constexpr size_t kChunk = 256 * 1024;

/// Collects inflated bytes, keeping the last `cap` (from a line start once
/// anything was dropped), or, `whole`, all of them or none: past `cap` it
/// holds nothing and the inflating stops (a gzip bomb costs `cap` bytes).
class Tail {
 public:
  Tail(size_t cap, bool whole) : cap_(cap), whole_(whole) {}
  bool over() const { return whole_ && dropped_; }
  void add(const char* p, size_t n) {
    if (over()) return;
    if (whole_ && out_.size() + n > cap_) {
      dropped_ = true;
      std::string().swap(out_);
      return;
    }
    out_.append(p, n);
    if (out_.size() > 2 * cap_) {
      out_.erase(0, out_.size() - cap_);
      dropped_ = true;
    }
  }
  bool dropped() const { return dropped_; }
  std::string take() {
    if (out_.size() > cap_) {
      out_.erase(0, out_.size() - cap_);
      dropped_ = true;
    }
    if (dropped_ && !whole_) out_.erase(0, std::min(out_.size(), out_.find('\n') + 1));
    return std::move(out_);
  }

 private:
  size_t cap_;
  bool whole_;
  std::string out_;
  bool dropped_ = false;
};

Inflated finished(Tail& tail) {
  std::string data = tail.take();
  return Inflated{std::move(data), std::nullopt, tail.dropped()};
}

Inflated failed(const char* format, const std::string& name, const std::string& why) {
  return Inflated{{}, std::string("cannot read ") + name + ": " + format + " data " + why};
}

Inflated gunzip(std::string_view in, const std::string& name, size_t cap, bool whole) {
  Tail tail(cap, whole);
  std::vector<char> buf(kChunk);
  size_t at = 0;
  while (at < in.size()) {  // one member per round (gzip -d reads them all)
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return failed("gzip", name, "(zlib init failed)");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + at));
    z.avail_in = static_cast<uInt>(std::min<size_t>(in.size() - at, UINT32_MAX));
    int rc = Z_OK;
    while (rc == Z_OK && !tail.over()) {
      z.next_out = reinterpret_cast<Bytef*>(buf.data());
      z.avail_out = static_cast<uInt>(buf.size());
      rc = inflate(&z, Z_NO_FLUSH);
      tail.add(buf.data(), buf.size() - z.avail_out);
      if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended inside the member
    }
    const std::string why = z.msg ? z.msg : "";
    const size_t used = z.total_in;
    inflateEnd(&z);
    if (tail.over()) return finished(tail);
    if (rc != Z_STREAM_END)
      return failed("gzip", name, rc == Z_BUF_ERROR ? "cut short" : "corrupt (" + why + ")");
    at += used;
    // Trailing zeros (a padded tape or block device image) end the file.
    if (std::all_of(in.begin() + at, in.end(), [](char c) { return c == 0; })) break;
    if (compression_of(in.substr(at)) != Compression::kGzip)
      return failed("gzip", name, "followed by bytes that are not another gzip member");
  }
  return finished(tail);
}

Inflated unxz(std::string_view in, const std::string& name, size_t cap, bool whole) {
  Tail tail(cap, whole);
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    return failed("xz", name, "(liblzma init failed)");
  std::vector<char> buf(kChunk);
  s.next_in = reinterpret_cast<const uint8_t*>(in.data());
  s.avail_in = in.size();
  lzma_ret rc = LZMA_OK;
  while (rc == LZMA_OK && !tail.over()) {
    s.next_out = reinterpret_cast<uint8_t*>(buf.data());
    s.avail_out = buf.size();
    rc = lzma_code(&s, s.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
    tail.add(buf.data(), buf.size() - s.avail_out);
  }
  lzma_end(&s);
  if (tail.over()) return finished(tail);
  if (rc == LZMA_STREAM_END) return finished(tail);
  if (rc == LZMA_BUF_ERROR) return failed("xz", name, "cut short");
  if (rc == LZMA_MEM_ERROR) return failed("xz", name, "needs more memory than there is");
  return failed("xz", name, rc == LZMA_FORMAT_ERROR ? "not in the .xz format" : "corrupt");
}

Inflated unzstd(std::string_view in, const std::string& name, size_t cap, bool whole) {
  Tail tail(cap, whole);
  ZSTD_DCtx* d = ZSTD_createDCtx();
  if (!d) return failed("zstd", name, "(libzstd init failed)");
  std::vector<char> buf(kChunk);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  // 0 at a frame's end (ZSTD_decompressStream's return); anything else
  // once the input is used up is a frame cut short, or output still
  // buffered, which further calls drain.
  size_t left = 0;
  bool more = true;
  while (more) {
    ZSTD_outBuffer out{buf.data(), buf.size(), 0};
    const bool had_input = input.pos < input.size;
    left = ZSTD_decompressStream(d, &out, &input);
    if (ZSTD_isError(left)) {
      const std::string why = ZSTD_getErrorName(left);
      ZSTD_freeDCtx(d);
      return failed("zstd", name, "corrupt (" + why + ")");
    }
    tail.add(buf.data(), out.pos);
    more = !tail.over() && (input.pos < input.size || (left != 0 && (had_input || out.pos > 0)));
  }
  ZSTD_freeDCtx(d);
  if (tail.over()) return finished(tail);
  if (left != 0) return failed("zstd", name, "cut short");
  return finished(tail);
}

}  // namespace

Compression compression_of(std::string_view h) {
  auto starts = [&](std::string_view magic) { return h.substr(0, magic.size()) == magic; };
  if (starts("\x1f\x8b")) return Compression::kGzip;
  if (starts(std::string_view("\xfd"
                              "7zXZ\0",
                              6)))
    return Compression::kXz;
  if (starts("\x28\xb5\x2f\xfd")) return Compression::kZstd;
  return Compression::kNone;
}

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kXz:
      return "xz";
    case Compression::kZstd:
      return "zstd";
  }
  return "?";
}

Inflated inflate_log(std::string_view in, Compression c, const std::string& name, size_t cap,
                     bool whole) {
  switch (c) {
    case Compression::kGzip:
      return gunzip(in, name, cap, whole);
    case Compression::kXz:
      return unxz(in, name, cap, whole);
    case Compression::kZstd:
      return unzstd(in, name, cap, whole);
    case Compression::kNone:
      break;
  }
  return Inflated{std::string(in), std::nullopt};
}

}  // namespace gt::klog
