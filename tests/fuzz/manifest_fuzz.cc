// Manifest files (--manifest: sha256sum / b3sum style lines).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "data/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::Result<gt::Manifest> m = gt::parse_manifest(text);
  if (m.ok()) {
    std::map<std::string, std::string> now;
    gt::compare_manifest(m.value(), now);
  }
  return 0;
}
