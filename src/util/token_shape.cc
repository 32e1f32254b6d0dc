#include "util/token_shape.h"

#include <array>
#include <cctype>

namespace gt {
namespace {

enum class Body { kAlnum, kAlnumUnderscore, kAlnumDash, kUpperDigits };

struct Shape {
  std::string_view prefix;
  Body body;
  size_t min_body;  ///< the shortest real body (AWS: exactly this long)
};

constexpr std::array<Shape, 16> kShapes = {{
    {"github_pat_", Body::kAlnumUnderscore, 20},
    {"hf_", Body::kAlnum, 20},
    {"ghp_", Body::kAlnum, 20},
    {"gho_", Body::kAlnum, 20},
    {"ghu_", Body::kAlnum, 20},
    {"ghs_", Body::kAlnum, 20},
    {"ghr_", Body::kAlnum, 20},
    {"sk-", Body::kAlnumDash, 20},
    {"xoxb-", Body::kAlnumDash, 10},
    {"xoxp-", Body::kAlnumDash, 10},
    {"xoxa-", Body::kAlnumDash, 10},
    {"xoxr-", Body::kAlnumDash, 10},
    {"xoxs-", Body::kAlnumDash, 10},
    {"AKIA", Body::kUpperDigits, 16},
    {"ASIA", Body::kUpperDigits, 16},
    {"AIza", Body::kAlnumDash, 30},
}};

/// The shortest body of mixed case and no digit taken for a token.
constexpr size_t kRandomWithoutDigit = 30;

bool in_body(char c, Body b) {
  const auto u = static_cast<unsigned char>(c);
  switch (b) {
    case Body::kAlnum:
      return std::isalnum(u) != 0;
    case Body::kAlnumUnderscore:
      return std::isalnum(u) != 0 || c == '_';
    case Body::kAlnumDash:
      return std::isalnum(u) != 0 || c == '_' || c == '-';
    case Body::kUpperDigits:
      return std::isupper(u) != 0 || std::isdigit(u) != 0;
  }
  return false;
}

}  // namespace

TokenShape token_shape_at(std::string_view text, size_t at) {
  const std::string_view rest = text.substr(at);
  for (const Shape& s : kShapes) {
    if (!rest.starts_with(s.prefix)) continue;
    size_t end = s.prefix.size();
    bool digit = false, upper = false, lower = false;
    while (end < rest.size() && in_body(rest[end], s.body)) {
      const auto c = static_cast<unsigned char>(rest[end]);
      digit = digit || std::isdigit(c) != 0;
      upper = upper || std::isupper(c) != 0;
      lower = lower || std::islower(c) != 0;
      ++end;
    }
    const size_t body = end - s.prefix.size();
    const bool exact = s.body == Body::kUpperDigits;
    // A random body may hold no digit (1 in 400 Hugging Face tokens, 1 in
    // 28 AWS key ids of base32): an exact-length AWS id, or both cases over
    // 30 characters, is no word either.
    const bool random = digit || exact || (upper && lower && body >= kRandomWithoutDigit);
    if (random && (exact ? body == s.min_body : body >= s.min_body)) return {end, s.prefix};
  }
  return {};
}

}  // namespace gt
