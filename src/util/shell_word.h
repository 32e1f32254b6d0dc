// A word for a command line shown to the operator: as it is when it holds
// only characters the shell takes literally, else in single quotes.
#pragma once

#include <string>
#include <string_view>

namespace gt {

inline std::string shell_word(std::string_view s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("_./:=@%+,-").find(c) != std::string_view::npos);
  if (plain) return std::string(s);
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace gt
