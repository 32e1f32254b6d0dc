// safetensors (huggingface/safetensors, safetensors/src/tensor.rs): an
// 8-byte little-endian header length N (at most 100,000,000), N bytes of
// UTF-8 JSON starting with '{' (space-padded to a multiple of 8), then the
// byte buffer. Each tensor is {"dtype", "shape", "data_offsets": [begin,
// end)} relative to the buffer; "__metadata__" is a string map. The
// reference reader requires the tensors, sorted by offset, to be contiguous
// from 0 with end - begin == prod(shape) * bits / 8, and the last end + 8 + N
// to be exactly the file length. There is no checksum. Until PR #764
// (2026-05) the writer did set_len(total) before streaming the data, so a
// crash left a full-size file with a zero tail: deep mode looks for
// all-zero 4 KiB blocks in floating-point tensors.
#include "data/formats/safetensors_verifier.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "data/formats/value_consumer.h"

namespace gt {
namespace {

constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct Tensor {
  std::string name, dtype;
  uint64_t begin, end;
  std::optional<uint64_t> want_bytes;
  bool is_float;
};

std::optional<uint32_t> dtype_bits(const std::string& d) {
  static const std::pair<const char*, uint32_t> kBits[] = {
      {"BOOL", 8},    {"U8", 8},          {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8},
      {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},
      {"F16", 16},    {"BF16", 16},       {"I32", 32},        {"U32", 32},    {"F32", 32},
      {"C64", 64},    {"F64", 64},        {"I64", 64},        {"U64", 64},    {"F4", 4},
      {"F6_E2M3", 6}, {"F6_E3M2", 6}};
  for (const auto& [name, bits] : kBits)
    if (d == name) return bits;
  return std::nullopt;
}

// Parses one tensor entry; nullopt (problem added) if malformed.
std::optional<Tensor> parse_tensor(const std::string& name, const nlohmann::json& v,
                                   FileCheck& check) {
  const nlohmann::json* offs =
      v.is_object() && v.contains("data_offsets") ? &v["data_offsets"] : nullptr;
  if (!offs || !offs->is_array() || offs->size() != 2 || !(*offs)[0].is_number_unsigned() ||
      !(*offs)[1].is_number_unsigned() || !v.contains("dtype") || !v["dtype"].is_string() ||
      !v.contains("shape") || !v["shape"].is_array()) {
    add_problem(check, ProblemCode::kMalformed, "tensor " + name + ": bad header entry");
    return std::nullopt;
  }
  std::string dtype = v["dtype"].get<std::string>();
  Tensor t{name,         dtype, (*offs)[0].get<uint64_t>(), (*offs)[1].get<uint64_t>(),
           std::nullopt, false};
  t.is_float = dtype[0] == 'F' || dtype == "BF16";
  std::optional<uint32_t> bits = dtype_bits(dtype);
  uint64_t n = 1;
  bool overflow = false;
  for (const nlohmann::json& d : v["shape"]) {
    if (!d.is_number_unsigned()) {
      add_problem(check, ProblemCode::kMalformed, "tensor " + name + ": bad shape");
      return std::nullopt;
    }
    uint64_t k = d.get<uint64_t>();
    if (k != 0 && n > UINT64_MAX / k / 8) overflow = true;
    n *= k;
  }
  if (overflow) {
    add_problem(check, ProblemCode::kMalformed, "tensor " + name + ": shape overflows");
    return std::nullopt;
  }
  if (bits)
    t.want_bytes = (n * *bits + 7) / 8;  // n * 8 fits: checked above
  else
    note_unverifiable(check, "tensor " + name + ": dtype " + dtype +
                                 " of unknown size: its length is not checked");
  return t;
}

// Tensors sorted by offset must tile [0, buffer_bytes).
void check_tiling(std::vector<Tensor>& ts, uint64_t header_end, uint64_t size, FileCheck& check) {
  std::sort(ts.begin(), ts.end(),
            [](const Tensor& a, const Tensor& b) { return a.begin < b.begin; });
  uint64_t expect = 0;
  for (const Tensor& t : ts) {
    if (t.end < t.begin || t.begin != expect)
      return add_problem(check, ProblemCode::kSizeMismatch,
                         "tensors do not tile the buffer: tensor " + t.name + " spans [" +
                             std::to_string(t.begin) + ", " + std::to_string(t.end) +
                             "), previous tensor ends at " + std::to_string(expect));
    if (t.want_bytes && *t.want_bytes != t.end - t.begin)
      return add_problem(check, ProblemCode::kSizeMismatch,
                         "tensor " + t.name + ": " + std::to_string(t.end - t.begin) +
                             " bytes, dtype x shape says " + std::to_string(*t.want_bytes));
    expect = t.end;
  }
  std::optional<uint64_t> end = checked_add(header_end, expect);
  if (!end)
    return add_problem(check, ProblemCode::kMalformed,
                       "tensor offsets end at " + std::to_string(expect) + ", past 64 bits");
  uint64_t want = *end;
  if (size < want)
    add_problem(check, ProblemCode::kTruncated,
                "truncated at byte " + std::to_string(size) + " of " + std::to_string(want));
  else if (size > want)
    add_problem(check, ProblemCode::kSizeMismatch,
                std::to_string(size - want) + " bytes after the last tensor (file " +
                    std::to_string(size) + ", header says " + std::to_string(want) + ")");
}

// --values: where each F32/F16/BF16 tensor lies; other dtypes are listed.
void value_spans(const std::vector<Tensor>& tensors, uint64_t data_start, ValueSpans& values) {
  values.decoded = true;
  for (const Tensor& t : tensors) {
    std::optional<FloatLayout> l = safetensors_float_layout(t.dtype);
    if (!l) {
      values.skip(t.dtype);
      continue;
    }
    values.ranges.push_back(
        {data_start + t.begin, data_start + t.end, *l, "tensor " + t.name + " (" + t.dtype + ")"});
  }
}

}  // namespace

void verify_safetensors(const ByteSource& src, bool deep, FileCheck& check,
                        std::vector<std::unique_ptr<StreamConsumer>>& consumers,
                        ValueSpans* values) {
  check.format = "safetensors";
  const uint64_t size = src.size();
  std::optional<std::vector<uint8_t>> len = read_or_note(src, 0, 8, check);
  if (!len) return;
  if (len->size() < 8)
    return add_problem(
        check, ProblemCode::kTruncated,
        "truncated at byte " + std::to_string(size) + " inside the 8-byte header length");
  uint64_t n = le64(len->data());
  if (n > kMaxSafetensorsHeaderBytes || n < 2)
    return add_problem(check, ProblemCode::kMalformed,
                       "header length " + std::to_string(n) + " bytes is absurd");
  if (8 + n > size)
    return add_problem(check, ProblemCode::kTruncated,
                       "truncated at byte " + std::to_string(size) + " inside the " +
                           std::to_string(n) + "-byte header");
  std::optional<std::vector<uint8_t>> text = read_or_note(src, 8, n, check);
  if (!text) return;
  nlohmann::json header = nlohmann::json::parse(text->begin(), text->end(), nullptr, false);
  if (header.is_discarded() || !header.is_object())
    return add_problem(check, ProblemCode::kMalformed, "header is not a JSON object");
  std::vector<Tensor> tensors;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    std::optional<Tensor> t = parse_tensor(it.key(), it.value(), check);
    if (!t) return;
    tensors.push_back(std::move(*t));
  }
  size_t before = check.problems.size();
  check_tiling(tensors, 8 + n, size, check);
  if (!deep || check.problems.size() > before) return;
  if (values) value_spans(tensors, 8 + n, *values);
  std::vector<ZeroBlockScanner::Range> ranges;
  for (const Tensor& t : tensors)
    if (t.is_float) ranges.push_back({8 + n + t.begin, 8 + n + t.end, "tensor " + t.name});
  if (!ranges.empty()) consumers.push_back(std::make_unique<ZeroBlockScanner>(std::move(ranges)));
}

}  // namespace gt
