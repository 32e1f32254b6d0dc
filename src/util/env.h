// Reading configuration from the environment.
#pragma once

#include <cstdlib>
#include <string>

namespace gt {

/// The value of environment variable `name`, or `fallback` when it is unset
/// or empty.
inline std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

}  // namespace gt
