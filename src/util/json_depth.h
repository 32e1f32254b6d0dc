// JSON parsing with a bound on nesting. nlohmann's parser is iterative, but
// printing and walking a value recurse, so "[[[[...]]]]" a million deep from
// a file or a remote host would overflow the stack later. Header-only: the
// mock NVML library (tests/mock_nvml) uses it too.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gt {

/// How deep our own JSON ever nests is under 10; 64 leaves room.
constexpr int kMaxJsonDepth = 64;

/// Thrown by parse_json_depth_limited for input nested too deep.
class JsonTooDeep : public std::runtime_error {
 public:
  explicit JsonTooDeep(int max_depth)
      : std::runtime_error("JSON nested deeper than " + std::to_string(max_depth) + " levels") {}
};

/// Json::parse(text), but an array or object nested more than `max_depth`
/// levels deep throws JsonTooDeep before it is built. Malformed text throws
/// Json's parse_error as Json::parse does.
template <typename Json = nlohmann::json>
Json parse_json_depth_limited(std::string_view text, int max_depth = kMaxJsonDepth) {
  using Event = typename Json::parse_event_t;
  return Json::parse(text, [max_depth](int depth, Event event, Json&) {
    if ((event == Event::object_start || event == Event::array_start) && depth >= max_depth)
      throw JsonTooDeep(max_depth);
    return true;
  });
}

/// parse_json_depth_limited as a value: nullopt with `error` set when the text
/// is malformed or nested too deep.
template <typename Json = nlohmann::json>
std::optional<Json> try_parse_json(std::string_view text, std::string& error,
                                   int max_depth = kMaxJsonDepth) {
  try {
    return parse_json_depth_limited<Json>(text, max_depth);
  } catch (const std::exception& e) {
    error = e.what();
  }
  return std::nullopt;
}

}  // namespace gt
