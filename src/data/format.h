// detect_format(): which verifier a file gets, decided by its first bytes
// (magic numbers), never by its name. The name only says whether a magic
// number was expected at all (a .ckpt full of zeros is zero-filled; a
// notes.txt is just another file).
#pragma once

#include <cstdint>
#include <string_view>

namespace gt {

enum class FileFormat {
  kEmpty,        ///< 0 bytes
  kZip,          ///< PK\x03\x04 or PK\x05\x06: torch.save (>= 1.6), .npz, or another zip
  kTorchLegacy,  ///< pickle protocol 2 + torch's legacy magic number (pre-1.6 torch.save)
  kTar,          ///< "ustar" at 257: torch's oldest tar-based format
  kGzip,         ///< 1f 8b 08: SpecForge --compress (.ckpt.gz)
  kNpy,          ///< \x93NUMPY
  kSafetensors,  ///< u64 header length then '{'
  kZeroHead,     ///< the first bytes are all zero
  kOther,        ///< none of the above: generic checks only
};

/// The stable name used in reports ("zip", "torch-legacy", "gzip", ...).
const char* format_name(FileFormat f);

/// Number of leading bytes detect_format() wants (fewer is fine for short files).
constexpr size_t kSniffBytes = 512;

/// Classifies a file from its first bytes `head` and its total size.
FileFormat detect_format(std::string_view head, uint64_t size_bytes);

/// True when a file with this name is expected to carry a known signature
/// (.pt .pth .ckpt .bin .gz .npy .npz .safetensors .tar), so that an
/// unknown signature is a problem rather than "some other file".
bool name_expects_signature(std::string_view name);

}  // namespace gt
