// Text helpers shared by the readers of command output and of /proc tables.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

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

/// The runs of `s` between any of the characters of `seps`, empty runs
/// dropped: split_words("a  b\n", " \n") is {"a", "b"}; split_words(text,
/// "\n") its non-empty lines. The views point into `s`.
inline std::vector<std::string_view> split_words(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t b = s.find_first_not_of(seps, i);
    if (b == std::string_view::npos) break;
    const size_t e = std::min(s.find_first_of(seps, b), s.size());
    out.push_back(s.substr(b, e - b));
    i = e;
  }
  return out;
}

/// The last line of `text` holding more than blanks, as it is (a trailing
/// '\r' dropped), "" when there is none: what ssh or a remote command said
/// last, quoted in an error.
inline std::string last_line(std::string_view text) {
  const std::vector<std::string_view> lines = split_words(text, "\r\n");
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->find_first_not_of(" \t") != std::string_view::npos) return std::string(*it);
  return "";
}

}  // namespace gt
