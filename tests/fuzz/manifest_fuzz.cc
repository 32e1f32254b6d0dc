// Manifest files (--manifest: sha256sum / b3sum style lines).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "data/manifest.h"
#include "fuzz_target.h"

GT_FUZZ_TARGET(manifest) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::Result<gt::Manifest> m = gt::parse_manifest(text);
  if (m.ok()) {
    std::map<std::string, std::string> now;
    gt::compare_manifest(m.value(), now);
  }
  return 0;
}
