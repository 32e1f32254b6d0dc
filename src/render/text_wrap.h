// Word wrapping for the table renderers.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "util/terminal_text.h"

namespace gt {

/// `shown` (text already through for_terminal) cut to `width` bytes with a
/// "~" in the last column, never inside a character; unchanged when it fits.
inline std::string clip_shown(const std::string& shown, size_t width) {
  if (shown.size() <= width) return shown;
  size_t cut = width <= 1 ? width : width - 1;
  while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;
  return shown.substr(0, cut) + (width <= 1 ? "" : "~");
}

/// `lead` then the words of `text` as shown (for_terminal: a line break or
/// an escape inside it is shown, never acted on), wrapped before `width`
/// columns, each
/// continuation line indented by `indent` spaces; ends with a newline. A word
/// that fits on no line (a long path) is broken after a '/', its pieces
/// joined without a space.
inline std::string wrap_words(const std::string& lead, const std::string& text, size_t width,
                              size_t indent) {
  struct Piece {
    std::string text;
    bool glued;  ///< continues the previous piece's word
  };
  const size_t npos = std::string::npos;
  const size_t longest = width != npos && width > indent + 8 ? width - indent : npos;
  std::vector<Piece> pieces;
  std::istringstream words(for_terminal(text));
  for (std::string word; words >> word;) {
    bool glued = false;
    while (longest != npos && word.size() > longest) {
      size_t cut = word.rfind('/', longest - 1);
      if (cut == npos || cut == 0) break;
      pieces.push_back({word.substr(0, cut + 1), glued});
      word = word.substr(cut + 1);
      glued = true;
    }
    pieces.push_back({word, glued});
  }
  std::string out = lead;
  size_t col = lead.size();
  bool first = true;
  for (const Piece& p : pieces) {
    size_t gap = first || p.glued ? 0 : 1;
    if (!first && col + gap + p.text.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (gap) {
      out += " ";
      ++col;
    }
    out += p.text;
    col += p.text.size();
    first = false;
  }
  return out + "\n";
}

}  // namespace gt
