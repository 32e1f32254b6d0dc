// A word for a command line shown to the operator: as it is when it holds
// only characters the shell takes literally, else in single quotes; a word
// with a character a terminal would act on (a line break, an escape, a byte
// that is not UTF-8) in ANSI-C quotes, $'...', with for_terminal's escapes,
// which bash reads back to the same bytes: shown safely, pasted exactly.
#pragma once

#include <string>
#include <string_view>

#include "util/terminal_text.h"

namespace gt {

inline std::string shell_word(std::string_view s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("_./:=@%+,-").find(c) != std::string_view::npos);
  if (plain) return std::string(s);
  if (for_terminal(s) != s) {
    std::string quoted;
    for (char c : s) {
      if (c == '\\' || c == '\'') quoted += '\\';
      quoted += c;
    }
    return "$'" + for_terminal(quoted) + "'";
  }
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace gt
