// torch.save's legacy (pre-1.6, non-zip) format.
#pragma once

#include <memory>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

struct ValueSpans;  // data/formats/value_consumer.h

/// Walks the pickles at the start of the file and the storages after them,
/// checking that they end exactly at the end of the file; with `deep`, adds
/// a zero-block scan of floating-point storages.
void verify_torch_legacy(const ByteSource& src, bool deep, FileCheck& check,
                         std::vector<std::unique_ptr<StreamConsumer>>& consumers,
                         ValueSpans* values = nullptr);

}  // namespace gt
