// NumPy .npy (numpy/lib/_format_impl.py): magic \x93NUMPY, major and minor
// version, then HEADER_LEN as u16 (v1.0) or u32 (v2.0, v3.0; v3 allows
// UTF-8), then a Python dict literal {'descr': ..., 'fortran_order': ...,
// 'shape': (...), } padded with spaces to a multiple of 64 and ending in
// '\n'. NumPy refuses literals over 10,000 bytes unless asked; we accept up
// to 1 MiB, so an absurd HEADER_LEN is "malformed", not an allocation. The
// array bytes follow, exactly prod(shape) * itemsize of them (shape () is one
// element); object arrays ('|O') hold a pickle instead and have no fixed
// size. There is no checksum: deep mode can only look for all-zero 4 KiB
// blocks in floating-point data, the signature of a preallocated or
// partially written-back file.
#include "data/npy_verifier.h"

#include <charconv>

namespace gt {
namespace {

constexpr uint64_t kMaxHeaderBytes = 1 << 20;

std::optional<std::string> dict_value(std::string_view dict, std::string_view key) {
  std::string q1 = "'" + std::string(key) + "'";
  size_t k = dict.find(q1);
  if (k == std::string_view::npos) return std::nullopt;
  size_t colon = dict.find(':', k + q1.size());
  if (colon == std::string_view::npos) return std::nullopt;
  size_t v = dict.find_first_not_of(' ', colon + 1);
  if (v == std::string_view::npos) return std::nullopt;
  if (dict[v] == '(') {
    size_t end = dict.find(')', v);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(dict.substr(v, end - v + 1));
  }
  if (dict[v] == '\'') {
    size_t end = dict.find('\'', v + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(dict.substr(v + 1, end - v - 1));
  }
  size_t end = dict.find_first_of(",}", v);
  return std::string(dict.substr(v, end == std::string_view::npos ? 0 : end - v));
}

// prod(shape) with overflow checks; nullopt if not a tuple of integers.
std::optional<uint64_t> shape_elements(std::string_view shape) {
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') return std::nullopt;
  uint64_t n = 1;
  size_t i = 1;
  while (i < shape.size() - 1) {
    while (i < shape.size() - 1 && (shape[i] == ' ' || shape[i] == ',')) ++i;
    if (i >= shape.size() - 1) break;
    uint64_t d = 0;
    auto [ptr, ec] = std::from_chars(shape.data() + i, shape.data() + shape.size() - 1, d);
    if (ec != std::errc() || ptr == shape.data() + i) return std::nullopt;
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
    i = ptr - shape.data();
    if (i < shape.size() - 1 && shape[i] == 'L') ++i;  // Python 2 longs
  }
  return n;
}

void malformed(FileCheck& check, std::string msg) {
  check.problems.push_back({ProblemCode::kMalformed, std::move(msg)});
}

}  // namespace

std::optional<NpyHeader> parse_npy_header(std::string_view head, uint64_t total, FileCheck& check) {
  if (head.size() < 10 || head.substr(0, 6) != "\x93NUMPY") {
    malformed(check, "no .npy magic");
    return std::nullopt;
  }
  uint8_t major = uint8_t(head[6]);
  if (major < 1 || major > 3) {
    malformed(check, "unknown .npy version " + std::to_string(major) + "." +
                         std::to_string(uint8_t(head[7])));
    return std::nullopt;
  }
  const uint8_t* p = reinterpret_cast<const uint8_t*>(head.data());
  uint64_t prefix = major == 1 ? 10 : 12;
  uint64_t hlen = major == 1 ? le16(p + 8) : (head.size() >= 12 ? le32(p + 8) : UINT32_MAX);
  if (hlen > kMaxHeaderBytes) {
    malformed(check, "header length " + std::to_string(hlen) + " bytes is absurd");
    return std::nullopt;
  }
  NpyHeader h;
  h.data_offset = prefix + hlen;
  if (h.data_offset > total) {
    check.problems.push_back(
        {ProblemCode::kTruncated, "truncated at byte " + std::to_string(total) + " inside the " +
                                      std::to_string(h.data_offset) + "-byte header"});
    return std::nullopt;
  }
  if (head.size() < h.data_offset) {
    malformed(check, "header not read");  // caller did not pass enough bytes
    return std::nullopt;
  }
  std::string_view dict = head.substr(prefix, hlen);
  std::optional<std::string> descr = dict_value(dict, "descr"), shape = dict_value(dict, "shape");
  if (dict.empty() || dict.front() != '{' || !descr || !shape) {
    malformed(check, "header is not a dict with 'descr' and 'shape'");
    return std::nullopt;
  }
  h.descr = *descr;
  std::optional<uint64_t> elems = shape_elements(*shape);
  if (!elems) {
    malformed(check, "bad shape " + *shape);
    return std::nullopt;
  }
  if (h.descr.size() >= 3 && h.descr[1] != 'O' && h.descr.front() != '[') {
    uint64_t item = 0;
    std::from_chars(h.descr.data() + 2, h.descr.data() + h.descr.size(), item);
    if (h.descr[1] == 'U') item *= 4;
    if (item > 0 && *elems <= UINT64_MAX / item) h.data_bytes = *elems * item;
    h.is_float = h.descr[1] == 'f';
  }
  return h;
}

void verify_npy(const ByteSource& src, bool deep, FileCheck& check,
                std::vector<std::unique_ptr<StreamConsumer>>& consumers) {
  std::optional<std::vector<uint8_t>> head = read_or_note(src, 0, 4096, check);
  if (!head) return;
  std::string_view hv(reinterpret_cast<const char*>(head->data()), head->size());
  if (head->size() >= 12 && hv[6] != 1 && le32(head->data() + 8) + 12 > head->size() &&
      le32(head->data() + 8) <= kMaxHeaderBytes) {
    head = read_or_note(src, 0, 12 + le32(head->data() + 8), check);  // a long v2/v3 header
    if (!head) return;
    hv = std::string_view(reinterpret_cast<const char*>(head->data()), head->size());
  }
  std::optional<NpyHeader> h = parse_npy_header(hv, src.size(), check);
  if (!h || !h->data_bytes) return;
  uint64_t want = h->data_offset + *h->data_bytes;
  if (src.size() < want) {
    check.problems.push_back(
        {ProblemCode::kTruncated, "truncated at byte " + std::to_string(src.size()) + " of " +
                                      std::to_string(want) + " (" + h->descr + " array)"});
  } else if (src.size() > want) {
    check.problems.push_back(
        {ProblemCode::kSizeMismatch, std::to_string(src.size() - want) + " bytes after the " +
                                         std::to_string(*h->data_bytes) + "-byte array (file " +
                                         std::to_string(src.size()) + ", header says " +
                                         std::to_string(want) + ")"});
  } else if (deep && h->is_float) {
    consumers.push_back(std::make_unique<ZeroBlockScanner>(
        std::vector<ZeroBlockScanner::Range>{{h->data_offset, want, "array data"}}));
  }
}

}  // namespace gt
