// --values in the deep pass: the format verifiers say where each float
// tensor's bytes lie (ValueSpans); the consumer counts them as the bytes
// stream past and sets FileCheck::values, adding a `non-finite` problem for
// NaN or Inf unless they are allowed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/formats/tensor_values.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

struct ValueRange {
  uint64_t begin = 0, end = 0;  ///< file bytes (the compressed bytes when deflated)
  FloatLayout layout;
  std::string label;  ///< "storage 3 (BFloat16)", "tensor hidden (BF16)", "array data (<f4)"
  /// Raw deflate (an .npz member of savez_compressed): the values start
  /// `skip` bytes into the inflated data (after the member's .npy header).
  bool deflated = false;
  uint64_t skip = 0;
};

/// What a verifier found out about a file's tensors for --values.
struct ValueSpans {
  std::vector<ValueRange> ranges;      ///< float32/float16/bfloat16 tensors
  std::vector<std::string> uncounted;  ///< the dtype of each other tensor
  bool decoded = false;                ///< the verifier knows where the tensors are
  void skip(std::string dtype) { uncounted.push_back(std::move(dtype)); }
};

/// The consumer that counts `spans` (nullptr when the verifier did not
/// decode the file: values stay null).
std::unique_ptr<StreamConsumer> make_value_consumer(ValueSpans spans, bool allow_non_finite);

/// Fills a summary from per-tensor counts (exposed for tests).
void add_tensor_counts(ValueSummary& v, const std::string& label, const ValueCounts& c);

}  // namespace gt
