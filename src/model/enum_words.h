// The one way a word becomes one of the model's enums: the value of the
// enum's table whose name function gives that word. Readers of saved text
// (the report's JSON) use it; every enum's name function is the only place
// its words are written.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace gt {

template <typename E, size_t N>
constexpr std::optional<E> enum_of_word(const std::array<E, N>& all, const char* (*name)(E),
                                        std::string_view word) {
  for (E v : all)
    if (word == name(v)) return v;
  return std::nullopt;
}

}  // namespace gt
