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
#include <unordered_map>
#include <utility>
#include <vector>

namespace gt {

/// How deep our own JSON ever nests is under 10; 64 leaves room.
constexpr int kMaxJsonDepth = 64;

/// What a key given twice in one object does: the last value wins (as
/// Json::parse), or the text is refused (a report read back: an edited
/// report whose two "verdict" keys disagree is not a report we wrote).
enum class DuplicateKeys { kLastWins, kRefused };

/// Thrown for a key given twice under DuplicateKeys::kRefused.
class JsonDuplicateKey : public std::runtime_error {
 public:
  explicit JsonDuplicateKey(const std::string& key)
      : std::runtime_error("the key \"" + key.substr(0, 60) + "\" is given twice in one object") {}
};

/// Thrown by parse_json_depth_limited for input nested too deep.
class JsonTooDeep : public std::runtime_error {
 public:
  explicit JsonTooDeep(int max_depth)
      : std::runtime_error("JSON nested deeper than " + std::to_string(max_depth) + " levels") {}
};

/// Builds a Json from nlohmann's SAX events, refusing nesting deeper than
/// `max_depth`. nlohmann's own callback parser (Json::parse with a
/// callback) scans its parent's members at every object's end for a
/// discarded one, so an array of N objects costs N^2 (816 KB: 32 s, issue
/// 48); and an ordered_json object finds each new key by a linear search.
/// Here each value is placed in constant time (an ordered object's keys
/// are indexed while it is open), so parsing is linear in the text. A key
/// given twice keeps its first place and its last value, as Json::parse
/// does, or throws JsonDuplicateKey (DuplicateKeys::kRefused).
template <typename Json>
class BoundedJsonBuilder {
 public:
  using string_t = typename Json::string_t;
  using object_t = typename Json::object_t;

  BoundedJsonBuilder(Json& root, int max_depth, DuplicateKeys twice = DuplicateKeys::kLastWins)
      : root_(root), max_depth_(max_depth), twice_(twice) {}

  bool null() { return put(Json(nullptr)) != nullptr; }
  bool boolean(bool v) { return put(Json(v)) != nullptr; }
  bool number_integer(typename Json::number_integer_t v) { return put(Json(v)) != nullptr; }
  bool number_unsigned(typename Json::number_unsigned_t v) { return put(Json(v)) != nullptr; }
  bool number_float(typename Json::number_float_t v, const string_t&) {
    return put(Json(v)) != nullptr;
  }
  bool string(string_t& v) { return put(Json(std::move(v))) != nullptr; }
  bool binary(typename Json::binary_t& v) { return put(Json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool key(string_t& k) {
    slot_ = slot_for(std::move(k));
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  /// Malformed text: nlohmann's own exception, as Json::parse throws it.
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  struct Open {
    Json* value;
    std::unordered_map<string_t, std::size_t> keys;  ///< ordered_json: key -> index
  };

  bool open(Json&& empty) {
    if (static_cast<int>(stack_.size()) >= max_depth_) throw JsonTooDeep(max_depth_);
    stack_.push_back({put(std::move(empty)), {}});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  /// Stores `v` where the next value goes: the root, an array's end or the
  /// member named by the last key. Returns where it now lives.
  Json* put(Json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& top = *stack_.back().value;
    if (top.is_array()) {
      auto& a = top.template get_ref<typename Json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  /// The member `k` of the open object, made (null) if new.
  Json* slot_for(string_t&& k) {
    Open& o = stack_.back();
    auto& members = o.value->template get_ref<object_t&>();
    if constexpr (requires { members.emplace_back(std::move(k), Json()); }) {
      // ordered_map is a vector: index its keys instead of searching them.
      auto [at, fresh] = o.keys.try_emplace(k, members.size());
      if (!fresh && twice_ == DuplicateKeys::kRefused) throw JsonDuplicateKey(k);
      if (!fresh) return &members.begin()[at->second].second;
      members.emplace_back(std::move(k), Json());
      return &members.back().second;
    } else {
      if (twice_ == DuplicateKeys::kRefused && members.count(k) != 0) throw JsonDuplicateKey(k);
      return &members[std::move(k)];
    }
  }

  Json& root_;
  int max_depth_;
  DuplicateKeys twice_;
  std::vector<Open> stack_;
  Json* slot_ = nullptr;
};

/// Json::parse(text), but an array or object nested more than `max_depth`
/// levels deep throws JsonTooDeep before it is built, and the time is linear
/// in the text (BoundedJsonBuilder). Malformed text throws Json's
/// parse_error as Json::parse does.
template <typename Json = nlohmann::json>
Json parse_json_depth_limited(std::string_view text, int max_depth = kMaxJsonDepth,
                              DuplicateKeys twice = DuplicateKeys::kLastWins) {
  Json root;
  BoundedJsonBuilder<Json> builder(root, max_depth, twice);
  Json::sax_parse(text, &builder);
  return root;
}

/// parse_json_depth_limited as a value: nullopt with `error` set when the text
/// is malformed or nested too deep.
template <typename Json = nlohmann::json>
std::optional<Json> try_parse_json(std::string_view text, std::string& error,
                                   int max_depth = kMaxJsonDepth,
                                   DuplicateKeys twice = DuplicateKeys::kLastWins) {
  try {
    return parse_json_depth_limited<Json>(text, max_depth, twice);
  } catch (const std::exception& e) {
    error = e.what();
  }
  return std::nullopt;
}

}  // namespace gt
