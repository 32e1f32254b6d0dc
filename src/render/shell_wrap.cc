#include "render/shell_wrap.h"

#include <vector>

namespace gt {

std::string shell_wrap(const std::string& cmd, size_t width) {
  if (8 + cmd.size() <= width) return "      $ " + cmd + "\n";
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  for (size_t i = 0; i < cmd.size(); ++i) {
    const char ch = cmd[i];
    // A comment runs to the end of the line: a "\\" inside it would not
    // continue the command, so it is never broken.
    if (!quote && ch == '#' && word.empty()) {
      word = cmd.substr(i);
      break;
    }
    if (quote) {
      quote = ch == quote ? 0 : quote;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == ' ') {
      if (!word.empty()) words.push_back(word);
      word.clear();
      continue;
    }
    word += ch;
  }
  if (!word.empty()) words.push_back(word);
  std::string out = "      $", line = out;
  for (size_t i = 0; i < words.size(); ++i) {
    // Room for " word" and, unless it is the last word, a trailing " \\".
    size_t need = line.size() + 1 + words[i].size() + (i + 1 < words.size() ? 2 : 0);
    if (i > 0 && need > width) {
      out += " \\\n";
      line = "          ";
      out += line;
      out += words[i];
      line += words[i];
      continue;
    }
    out += " " + words[i];
    line += " " + words[i];
  }
  return out + "\n";
}

}  // namespace gt
