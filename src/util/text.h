// Text helpers shared by the readers of command output.
#pragma once

#include <string>
#include <string_view>

namespace gt {

/// The first non-blank line of a command's output without its line break and
/// surrounding blanks ("" when there is none): what an error message quotes.
inline std::string first_line(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  text.remove_prefix(begin);
  text = text.substr(0, text.find_first_of("\r\n"));
  const size_t end = text.find_last_not_of(" \t");
  return std::string(text.substr(0, end + 1));
}

}  // namespace gt
