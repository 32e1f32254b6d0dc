// gzip streams (SpecForge --compress writes data_<idx>.ckpt.gz: a gzip
// stream wrapping a torch.save zip).
#pragma once

#include <memory>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

/// Streams up to this size are inflated whole even in quick mode: a gzip
/// has no index, so only inflating proves its trailer is there.
constexpr uint64_t kQuickInflateBytes = 1 << 20;

/// Checks the header and the trailer; adds the inflating consumer (CRC32
/// and length against the trailer) with `deep` or for small files.
void verify_gzip(const ByteSource& src, bool deep, FileCheck& check,
                 std::vector<std::unique_ptr<StreamConsumer>>& consumers);

}  // namespace gt
