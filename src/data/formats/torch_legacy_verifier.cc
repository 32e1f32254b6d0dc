// torch's legacy format (torch/serialization.py _legacy_save; default before
// 1.6, still written with _use_new_zipfile_serialization=False): five
// pickles back to back (the magic number 0x1950a86a20f9469cfc6c, the protocol
// version 1001, sys_info, the object whose persistent ids are
// ('storage', torch.<Dtype>Storage, key, location, numel, view_metadata),
// then the sorted list of storage keys), followed by each storage in that
// order as an 8-byte little-endian element count and numel * itemsize raw
// bytes. There is no checksum and no index: the only structural check is
// that the storages, walked one after another, end exactly at the end of the
// file (truncated if the file is shorter, size-mismatch if longer or if a
// count disagrees with the pickle). Pickles over 16 MiB are not walked, and
// a pickle we cannot model leaves the file unverifiable; a byte that is no
// pickle opcode makes it malformed (Python refuses it: "invalid load key").
#include "data/formats/torch_legacy_verifier.h"

#include <map>

#include "data/formats/pickle_scan.h"
#include "data/formats/value_consumer.h"

namespace gt {
namespace {

constexpr size_t kMaxPicklesBytes = 16 << 20;

// The storages after the pickles, in the order of the key list: each an
// 8-byte count then count x itemsize bytes, ending exactly at the end.
void check_storages(const ByteSource& src, uint64_t offset, const PickleScan& object,
                    const PickleScan& keys, bool deep, FileCheck& check,
                    std::vector<std::unique_ptr<StreamConsumer>>& consumers, ValueSpans* values) {
  const uint64_t size = src.size();
  std::map<std::string, const StorageRef*> by_key;
  for (const StorageRef& s : object.storages) by_key[s.key] = &s;
  std::vector<ZeroBlockScanner::Range> floats;
  ValueSpans spans;  // --values: read as little-endian (sys_info is not consulted)
  spans.decoded = true;
  for (const std::string& key : keys.strings) {
    auto it = by_key.find(key);
    if (it == by_key.end())
      return note_unverifiable(
          check, "storage " + key + " is not among the pickle's storages: sizes not checked");
    const StorageRef& ref = *it->second;
    if (!ref.itemsize_bytes)
      return note_unverifiable(check, "storage " + key + ": dtype " + ref.dtype +
                                          " of unknown item size: sizes not checked");
    std::optional<std::vector<uint8_t>> count = read_or_note(src, offset, 8, check);
    if (!count) return;
    if (count->size() < 8)
      return add_problem(check, ProblemCode::kTruncated,
                         "truncated at byte " + std::to_string(size) + " before storage " + key);
    uint64_t numel = le64(count->data());
    if (numel != ref.numel)
      return add_problem(check, ProblemCode::kSizeMismatch,
                         "storage " + key + " at byte " + std::to_string(offset) + " has " +
                             std::to_string(numel) + " elements, the pickle says " +
                             std::to_string(ref.numel));
    uint64_t begin = offset + 8;  // offset + 8 <= size: the count was read
    std::optional<uint64_t> bytes = checked_mul(numel, *ref.itemsize_bytes);
    if (!bytes || !range_within(begin, *bytes, size))
      return add_problem(check, ProblemCode::kTruncated,
                         "truncated at byte " + std::to_string(size) + ": storage " + key + " of " +
                             std::to_string(numel) + " x " + ref.dtype + " at byte " +
                             std::to_string(begin) + " runs past the end");
    if (ref.is_float) floats.push_back({begin, begin + *bytes, "storage " + key});
    if (std::optional<FloatLayout> l = torch_float_layout(ref.dtype))
      spans.ranges.push_back(
          {begin, begin + *bytes, *l, "storage " + key + " (" + ref.dtype + ")"});
    else
      spans.skip(ref.dtype);
    offset = begin + *bytes;
  }
  if (offset < size)
    return add_problem(check, ProblemCode::kSizeMismatch,
                       std::to_string(size - offset) + " bytes after the last storage (file " +
                           std::to_string(size) + ", storages end at " + std::to_string(offset) +
                           ")");
  if (deep && values) *values = std::move(spans);
  if (deep && !floats.empty())
    consumers.push_back(std::make_unique<ZeroBlockScanner>(std::move(floats)));
}

}  // namespace

void verify_torch_legacy(const ByteSource& src, bool deep, FileCheck& check,
                         std::vector<std::unique_ptr<StreamConsumer>>& consumers,
                         ValueSpans* values) {
  check.format = "torch-legacy";
  const uint64_t size = src.size();
  std::optional<std::vector<uint8_t>> head =
      read_or_note(src, 0, std::min<uint64_t>(size, kMaxPicklesBytes), check);
  if (!head) return;
  std::string_view bytes(reinterpret_cast<const char*>(head->data()), head->size());
  size_t pos = 0;
  PickleScan object, keys;
  for (int i = 0; i < 5; ++i) {
    PickleScan s = scan_pickle(bytes, pos, &pos);
    std::string where = "pickle " + std::to_string(i + 1) + " of 5: " + s.error.value_or("");
    if (s.unsupported) return note_unverifiable(check, where + ": storage sizes not checked");
    if (s.cut && head->size() < size)
      return note_unverifiable(check, "the pickles are longer than " +
                                          std::to_string(kMaxPicklesBytes >> 20) +
                                          " MiB: storage sizes not checked");
    if (s.cut)
      return add_problem(check, ProblemCode::kTruncated,
                         "truncated at byte " + std::to_string(size) + " inside " + where);
    if (!s.complete) return add_problem(check, ProblemCode::kMalformed, where);
    if (i == 3) object = std::move(s);
    if (i == 4) keys = std::move(s);
  }
  check_storages(src, pos, object, keys, deep, check, consumers, values);
}

}  // namespace gt
