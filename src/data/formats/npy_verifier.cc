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
//
// The header is parsed as NumPy does (ast.literal_eval, then exactly the
// three keys, a bool, a tuple of ints and a dtype): anything else is
// malformed. A header we parse but whose size we cannot compute (an object
// array, a structured dtype) leaves the file unverifiable, never intact.
#include "data/formats/npy_verifier.h"

#include <cctype>
#include <charconv>

#include "data/formats/value_consumer.h"

namespace gt {
namespace {

constexpr uint64_t kMaxNpyHeaderBytes = 1 << 20;
constexpr int kMaxDepth = 32;

// A Python literal as it appears in a .npy header.
struct Literal {
  enum Kind { kStr, kInt, kName, kTuple, kList, kDict } kind = kName;
  std::string_view text;        // the literal's source text (for messages)
  std::string_view str;         // kStr: contents (escapes left as written); kName: the name
  std::optional<uint64_t> num;  // kInt: the value, nullopt if negative or over 64 bits
  std::vector<Literal> items;   // tuple, list; dict: key, value, key, value...
};

// Recursive descent over the subset of Python literals NumPy writes.
class LiteralParser {
 public:
  explicit LiteralParser(std::string_view s) : s_(s) {}
  // Parses the whole input as one literal (trailing spaces and newline allowed).
  std::optional<Literal> parse_all() {
    std::optional<Literal> v = value(0);
    skip_space();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  std::optional<Literal> value(int depth) {
    skip_space();
    if (i_ >= s_.size() || depth > kMaxDepth) return std::nullopt;
    size_t begin = i_;
    std::optional<Literal> v;
    char c = s_[i_];
    if (c == '\'' || c == '"')
      v = string();
    else if (c == '(' || c == '[' || c == '{')
      v = sequence(depth);
    else if (c == '-' || (c >= '0' && c <= '9'))
      v = integer();
    else if (std::isalpha(static_cast<unsigned char>(c)))
      v = name();
    if (v) v->text = s_.substr(begin, i_ - begin);
    return v;
  }
  std::optional<Literal> string() {
    char q = s_[i_++];
    size_t begin = i_;
    for (; i_ < s_.size() && s_[i_] != q; ++i_)
      if (s_[i_] == '\\') ++i_;
    if (i_ >= s_.size()) return std::nullopt;
    Literal v;
    v.kind = Literal::kStr;
    v.str = s_.substr(begin, i_++ - begin);
    return v;
  }
  std::optional<Literal> integer() {
    Literal v;
    v.kind = Literal::kInt;
    bool negative = s_[i_] == '-';
    if (negative) ++i_;
    size_t begin = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    if (i_ == begin) return std::nullopt;
    uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + begin, s_.data() + i_, n);
    if (ec == std::errc() && !negative) v.num = n;
    if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 longs
    return v;
  }
  std::optional<Literal> name() {
    size_t begin = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
      ++i_;
    Literal v;
    v.kind = Literal::kName;
    v.str = s_.substr(begin, i_ - begin);
    return v;
  }
  // (a, b), [a, b] or {k: v, k: v}, each with an optional trailing comma.
  std::optional<Literal> sequence(int depth) {
    char open = s_[i_++], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    Literal v;
    v.kind = open == '(' ? Literal::kTuple : open == '[' ? Literal::kList : Literal::kDict;
    bool comma = false;
    while (!eat(close)) {
      if (!v.items.empty() && !comma) return std::nullopt;
      std::optional<Literal> item = value(depth + 1);
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*item));
      if (v.kind == Literal::kDict) {
        if (!eat(':')) return std::nullopt;
        std::optional<Literal> val = value(depth + 1);
        if (!val) return std::nullopt;
        v.items.push_back(std::move(*val));
      }
      comma = eat(',');
    }
    // (a) is a parenthesised value, not a tuple; NumPy always writes (a,).
    if (v.kind == Literal::kTuple && v.items.size() == 1 && !comma) return std::move(v.items[0]);
    return v;
  }

  std::string_view s_;
  size_t i_ = 0;
};

void malformed(FileCheck& check, std::string msg) {
  check.problems.push_back({ProblemCode::kMalformed, std::move(msg)});
}

// The three keys NumPy requires, exactly.
struct HeaderDict {
  const Literal* descr = nullptr;
  const Literal* fortran_order = nullptr;
  const Literal* shape = nullptr;
};

std::optional<HeaderDict> header_keys(const Literal& dict, FileCheck& check) {
  HeaderDict h;
  for (size_t k = 0; k + 1 < dict.items.size(); k += 2) {
    const Literal& key = dict.items[k];
    const Literal* value = &dict.items[k + 1];
    const Literal** slot = key.kind != Literal::kStr    ? nullptr
                           : key.str == "descr"         ? &h.descr
                           : key.str == "fortran_order" ? &h.fortran_order
                           : key.str == "shape"         ? &h.shape
                                                        : nullptr;
    if (!slot || *slot) {
      malformed(check, "header key " + std::string(key.text) + " is not one NumPy writes");
      return std::nullopt;
    }
    *slot = value;
  }
  if (!h.descr || !h.fortran_order || !h.shape) {
    malformed(check, "header lacks 'descr', 'fortran_order' or 'shape'");
    return std::nullopt;
  }
  if (h.fortran_order->kind != Literal::kName ||
      (h.fortran_order->str != "True" && h.fortran_order->str != "False")) {
    malformed(check, "fortran_order " + std::string(h.fortran_order->text) + " is not a bool");
    return std::nullopt;
  }
  return h;
}

// prod(shape) of a tuple of non-negative ints; nullopt (problem added) if
// not such a tuple or the product overflows 64 bits.
std::optional<uint64_t> shape_elements(const Literal& shape, FileCheck& check) {
  if (shape.kind != Literal::kTuple) {
    malformed(check, "shape " + std::string(shape.text) + " is not a tuple");
    return std::nullopt;
  }
  uint64_t n = 1;
  for (const Literal& d : shape.items) {
    if (d.kind != Literal::kInt || !d.num) {
      malformed(check, "bad shape " + std::string(shape.text));
      return std::nullopt;
    }
    std::optional<uint64_t> product = checked_mul(n, *d.num);
    if (!product) {
      malformed(check, "shape " + std::string(shape.text) + " overflows 64 bits");
      return std::nullopt;
    }
    n = *product;
  }
  return n;
}

// Bytes per element of a simple dtype string ("<f4", "|b1", "<U10",
// "<M8[ns]"); 0 for an object array ("|O"); nullopt if not a NumPy dtype.
std::optional<uint64_t> dtype_itemsize(std::string_view d) {
  if (d.size() < 2 || std::string_view("<>|=").find(d[0]) == std::string_view::npos)
    return std::nullopt;
  char kind = d[1];
  if (kind == 'O')
    return d.size() == 2 || d.substr(2) == "8" ? std::optional<uint64_t>(0) : std::nullopt;
  if (std::string_view("biufcmMSUV").find(kind) == std::string_view::npos) return std::nullopt;
  uint64_t item = 0;
  auto [ptr, ec] = std::from_chars(d.data() + 2, d.data() + d.size(), item);
  if (ec != std::errc() || item == 0) return std::nullopt;
  std::string_view rest(ptr, d.data() + d.size() - ptr);
  bool unit =
      (kind == 'm' || kind == 'M') && rest.size() >= 2 && rest.front() == '[' && rest.back() == ']';
  if (!rest.empty() && !unit) return std::nullopt;
  return kind == 'U' ? checked_mul(item, 4) : std::optional<uint64_t>(item);
}

// Fills h.descr, h.data_bytes and h.is_float from the dtype and the element
// count; false (problem added) if the header cannot be right.
bool apply_dtype(const Literal& descr, uint64_t elems, NpyHeader& h, FileCheck& check) {
  if (descr.kind == Literal::kList) {  // structured: [('name', '<f4'), ...]
    h.descr = std::string(descr.text);
    note_unverifiable(check, "structured dtype " + h.descr + ": array size not checked");
    return true;
  }
  if (descr.kind != Literal::kStr) {
    malformed(check, "descr " + std::string(descr.text) + " is not a dtype");
    return false;
  }
  h.descr = std::string(descr.str);
  std::optional<uint64_t> item = dtype_itemsize(descr.str);
  if (!item) {
    malformed(check, "descr '" + h.descr + "' is not a NumPy dtype of known item size");
    return false;
  }
  if (*item == 0) {
    note_unverifiable(check, "object array (" + h.descr + "): a pickle of no fixed size");
    return true;
  }
  std::optional<uint64_t> bytes = checked_mul(elems, *item);
  std::optional<uint64_t> end = bytes ? checked_add(h.data_offset, *bytes) : std::nullopt;
  if (!end) {
    malformed(check, std::to_string(elems) + " elements of " + h.descr + " overflow 64 bits");
    return false;
  }
  h.data_bytes = bytes;
  h.is_float = descr.str[1] == 'f';
  return true;
}

}  // namespace

std::optional<uint64_t> npy_header_end(std::string_view head) {
  if (head.size() < 10 || head.substr(0, 6) != "\x93NUMPY") return std::nullopt;
  uint8_t major = uint8_t(head[6]);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(head.data());
  if (major == 1) return 10 + uint64_t(le16(p + 8));
  if ((major == 2 || major == 3) && head.size() >= 12) return 12 + uint64_t(le32(p + 8));
  return std::nullopt;
}

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
  if (hlen > kMaxNpyHeaderBytes) {
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
    note_unverifiable(check, "header of " + std::to_string(h.data_offset) + " bytes not read");
    return std::nullopt;
  }
  std::string_view text = head.substr(prefix, hlen);
  std::optional<Literal> dict = LiteralParser(text).parse_all();
  if (!dict || dict->kind != Literal::kDict) {
    malformed(check, "header is not a Python dict literal (starts \"" +
                         std::string(text.substr(0, std::min<size_t>(text.size(), 40))) + "\")");
    return std::nullopt;
  }
  std::optional<HeaderDict> keys = header_keys(*dict, check);
  if (!keys) return std::nullopt;
  std::optional<uint64_t> elems = shape_elements(*keys->shape, check);
  if (!elems || !apply_dtype(*keys->descr, *elems, h, check)) return std::nullopt;
  return h;
}

namespace {

// --values: the array at [begin, end) of the file, if its dtype is counted.
void npy_value_span(const NpyHeader& h, uint64_t begin, uint64_t end, const std::string& label,
                    ValueSpans& values) {
  values.decoded = true;
  std::optional<FloatLayout> l = npy_float_layout(h.descr);
  if (l)
    values.ranges.push_back({begin, end, *l, label + " (" + h.descr + ")"});
  else
    values.skip(h.descr);
}

}  // namespace

void verify_npy(const ByteSource& src, bool deep, FileCheck& check,
                std::vector<std::unique_ptr<StreamConsumer>>& consumers, ValueSpans* values) {
  std::optional<std::vector<uint8_t>> head = read_or_note(src, 0, 4096, check);
  if (!head) return;
  std::string_view hv(reinterpret_cast<const char*>(head->data()), head->size());
  std::optional<uint64_t> end = npy_header_end(hv);
  if (end && *end > head->size() && *end <= kMaxNpyHeaderBytes + 12) {
    head = read_or_note(src, 0, *end, check);  // a long header
    if (!head) return;
    hv = std::string_view(reinterpret_cast<const char*>(head->data()), head->size());
  }
  std::optional<NpyHeader> h = parse_npy_header(hv, src.size(), check);
  if (!h || !h->data_bytes) return;                 // a problem, or unverifiable (noted)
  uint64_t want = h->data_offset + *h->data_bytes;  // checked by parse_npy_header
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
  } else if (deep) {
    if (values) npy_value_span(*h, h->data_offset, want, "array data", *values);
    if (!h->is_float) return;
    consumers.push_back(std::make_unique<ZeroBlockScanner>(
        std::vector<ZeroBlockScanner::Range>{{h->data_offset, want, "array data"}}));
  }
}

}  // namespace gt
