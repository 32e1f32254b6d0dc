#include "util/terminal_text.h"

#include <algorithm>
#include <cstdint>

#include "util/redact.h"

namespace gt {
namespace {

/// Length of the valid UTF-8 character at the start of `s` (RFC 3629: no
/// overlong form, no surrogate, at most U+10FFFF), 0 when there is none.
size_t utf8_length(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t c = b(0);
  size_t n = c < 0x80                 ? 1
             : c >= 0xC2 && c <= 0xDF ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i)
    if ((b(i) & 0xC0) != 0x80) return 0;
  if (n == 3 && c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
  if (n == 3 && c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
  if (n == 4 && c == 0xF0 && b(1) < 0x90) return 0;   // overlong
  if (n == 4 && c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
  return n;
}

/// A valid character that a terminal would act on rather than show: C0,
/// DEL, C1 (U+0080-U+009F: 0x9B is CSI), the bidi controls (U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators.
bool acts_on_terminal(std::string_view ch) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(ch[i]); };
  if (ch.size() == 1) return b(0) < 0x20 || b(0) == 0x7F;
  if (ch.size() == 2) return b(0) == 0xC2 && b(1) < 0xA0;
  if (ch.size() != 3 || b(0) != 0xE2) return false;
  if (b(1) == 0x80) return b(2) == 0x8E || b(2) == 0x8F || (b(2) >= 0xA8 && b(2) <= 0xAE);
  return b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9;
}

void append_escaped(std::string_view bytes, std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  for (char ch : bytes) {
    switch (ch) {
      case '\x1b':
        out += "\\e";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        const auto c = static_cast<uint8_t>(ch);
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      }
    }
  }
}

}  // namespace

std::string for_terminal(std::string_view raw, size_t max_bytes) {
  // Secrets out first (issue 47), before anything is cut or wrapped.
  const std::string redacted = redact_secrets(raw).text;
  const std::string_view s = redacted;
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
  if (plain && s.size() <= max_bytes) return std::string(s);
  std::string out;
  size_t shown = 0, i = 0;
  while (i < s.size()) {
    const size_t n = utf8_length(s.substr(i));
    const std::string_view ch = s.substr(i, n == 0 ? 1 : n);
    std::string piece;
    if (n == 0 || acts_on_terminal(ch))
      append_escaped(ch, piece);
    else
      piece = ch;
    if (shown + piece.size() > max_bytes) break;
    shown += piece.size();
    out += piece;
    i += ch.size();
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size() - i) + " more bytes)";
  return out;
}

}  // namespace gt
