#include "util/real_path.h"

#include <stdlib.h>

namespace gt {

std::optional<std::string> real_path(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  std::string out = resolved;
  ::free(resolved);
  return out;
}

std::vector<std::string> real_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths)
    if (std::optional<std::string> r = real_path(p)) out.push_back(std::move(*r));
  return out;
}

}  // namespace gt
