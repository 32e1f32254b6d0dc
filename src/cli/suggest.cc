#include "cli/suggest.h"

#include <algorithm>
#include <limits>

namespace gt {
namespace {

/// The name without leading dashes and without "=VALUE".
std::string_view bare(std::string_view word) {
  word.remove_prefix(std::min(word.find_first_not_of('-'), word.size()));
  return word.substr(0, word.find('='));
}

size_t allowed_edits(size_t length) {
  if (length < 3) return 0;
  if (length < 6) return 1;
  return length < 12 ? 2 : 3;
}

std::optional<std::string> unique_prefix_match(std::string_view word,
                                               const std::vector<std::string>& candidates) {
  if (word.size() < 3) return std::nullopt;
  std::optional<std::string> found;
  for (const std::string& c : candidates) {
    if (!bare(c).starts_with(word)) continue;
    if (found) return std::nullopt;  // two names begin so: no guess
    found = c;
  }
  return found;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: i-2, i-1 and i.
  std::vector<size_t> two(b.size() + 1), one(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) one[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({one[j] + 1, row[j - 1] + 1, one[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], two[j - 2] + 1);
    }
    std::swap(two, one);
    std::swap(one, row);
  }
  return one[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
  const std::string_view w = bare(word);
  if (w.empty() || w.size() > 64) return std::nullopt;
  size_t best = std::numeric_limits<size_t>::max();
  const std::string* found = nullptr;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(w, bare(c));
    if (d < best) best = d, found = &c;
  }
  if (found && best <= allowed_edits(w.size())) return *found;
  return unique_prefix_match(w, candidates);
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> m = closest_match(word, candidates);
  return m ? "; did you mean '" + *m + "'?" : "";
}

}  // namespace gt
