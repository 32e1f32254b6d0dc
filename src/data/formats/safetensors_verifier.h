// safetensors files (huggingface/safetensors).
#pragma once

#include <memory>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

struct ValueSpans;  // data/formats/value_consumer.h

/// Checks the header and that the tensors tile the buffer to the end of the
/// file; with `deep`, adds a zero-block scan of floating-point tensors.
void verify_safetensors(const ByteSource& src, bool deep, FileCheck& check,
                        std::vector<std::unique_ptr<StreamConsumer>>& consumers,
                        ValueSpans* values = nullptr);

}  // namespace gt
