#include "data/format.h"

#include <cstring>

#include "data/byte_source.h"

namespace gt {
namespace {

// torch's legacy format starts with a protocol-2 pickle of the 10-byte long
// MAGIC_NUMBER 0x1950a86a20f9469cfc6c (torch/serialization.py).
constexpr unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                          0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

bool starts_with(std::string_view s, const void* magic, size_t n) {
  return s.size() >= n && std::memcmp(s.data(), magic, n) == 0;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

const char* format_name(FileFormat f) {
  switch (f) {
    case FileFormat::kEmpty:
      return "empty";
    case FileFormat::kZip:
      return "zip";
    case FileFormat::kTorchLegacy:
      return "torch-legacy";
    case FileFormat::kTar:
      return "tar";
    case FileFormat::kGzip:
      return "gzip";
    case FileFormat::kNpy:
      return "npy";
    case FileFormat::kSafetensors:
      return "safetensors";
    case FileFormat::kZeroHead:
      return "zero";
    case FileFormat::kOther:
      return "other";
  }
  return "other";
}

FileFormat detect_format(std::string_view head, uint64_t size_bytes) {
  if (size_bytes == 0) return FileFormat::kEmpty;
  if (starts_with(head, "PK\x03\x04", 4) || starts_with(head, "PK\x05\x06", 4))
    return FileFormat::kZip;
  if (starts_with(head, kLegacyMagic, sizeof kLegacyMagic)) return FileFormat::kTorchLegacy;
  if (starts_with(head, "\x1f\x8b\x08", 3)) return FileFormat::kGzip;
  if (starts_with(head, "\x93NUMPY", 6)) return FileFormat::kNpy;
  if (head.size() >= 262 && std::memcmp(head.data() + 257, "ustar", 5) == 0)
    return FileFormat::kTar;
  // safetensors: 8-byte length, then a JSON object. A length that does not
  // fit in 100 MB (the reference reader's limit) is not safetensors.
  if (head.size() >= 9 && head[8] == '{') {
    uint64_t n = le64(reinterpret_cast<const uint8_t*>(head.data()));
    if (n >= 2 && n <= 100'000'000) return FileFormat::kSafetensors;
  }
  if (all_zero(reinterpret_cast<const uint8_t*>(head.data()), head.size()))
    return FileFormat::kZeroHead;
  return FileFormat::kOther;
}

bool name_expects_signature(std::string_view name) {
  for (std::string_view ext :
       {".pt", ".pth", ".ckpt", ".bin", ".gz", ".npy", ".npz", ".safetensors", ".tar"})
    if (ends_with(name, ext)) return true;
  return false;
}

}  // namespace gt
