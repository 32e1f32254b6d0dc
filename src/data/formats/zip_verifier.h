// torch.save zip files (>= 1.6) and NumPy .npz: both are zips.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

struct ValueSpans;  // data/formats/value_consumer.h

/// Quick checks of a zip (central directory, local headers, records tiling
/// the file, torch storage sizes against data.pkl, .npz member sizes). Sets
/// check.format to "torch-zip", "npz" or "zip". With `deep`, adds the
/// consumers that check every record's CRC32 (inflating deflated members).
/// A zip with no entries, and by the file's `name` a .pt/.pth/.ckpt without
/// data.pkl or an .npz without an .npy member, is malformed (deep or not).
void verify_zip(const ByteSource& src, bool deep, FileCheck& check,
                std::vector<std::unique_ptr<StreamConsumer>>& consumers,
                ValueSpans* values = nullptr, std::string_view name = {});

}  // namespace gt
