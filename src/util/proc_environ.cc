#include "util/proc_environ.h"

#include <string_view>

namespace gt {

std::map<std::string, std::string> parse_environ(const std::string& text) {
  std::map<std::string, std::string> env;
  size_t i = 0;
  while (i < text.size() && env.size() < 4096) {
    size_t end = text.find('\0', i);
    if (end == std::string::npos) end = text.size();
    std::string_view kv(text.data() + i, end - i);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos && eq > 0)
      env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    i = end + 1;
  }
  return env;
}

}  // namespace gt
