// Word wrapping for the table renderers.
#pragma once

#include <sstream>
#include <string>

namespace gt {

/// `lead` then the words of `text`, wrapped before `width` columns, each
/// continuation line indented by `indent` spaces; ends with a newline.
inline std::string wrap_words(const std::string& lead, const std::string& text, size_t width,
                              size_t indent) {
  std::string out = lead, word;
  size_t col = lead.size();
  std::istringstream words(text);
  bool first = true;
  while (words >> word) {
    if (!first && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (!first) {
      out += " ";
      ++col;
    }
    out += word;
    col += word.size();
    first = false;
  }
  return out + "\n";
}

}  // namespace gt
