// "did you mean ...?" for mistyped commands and options: the closest name
// by edit distance (optimal string alignment: a swap of two neighbouring
// letters counts once), or the one name a word begins.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gt {

/// Edits (insert, delete, substitute, swap two neighbours) between a and b.
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, or nullopt when none is close enough.
/// Leading dashes and an "=VALUE" are ignored on both sides, so "-json" and
/// "--jsn=1" both find "--json". Close enough: at most 1 edit for names of
/// 3-5 letters, 2 up to 11, 3 beyond (never for one or two letters); else
/// the one candidate that `word` (3 letters or more) begins. Ties go to the
/// earlier candidate.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

/// " did you mean 'X'?" for closest_match's answer, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gt
