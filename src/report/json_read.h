// Reading typed values out of a JSON document we wrote (docs/json.md), for
// report_from_json. Every accessor checks the type and the range before it
// converts: a value of the wrong type, an integer that does not fit its
// field (1e300 where a count belongs, -1 for an unsigned), a time that is
// not one format_utc writes, is a ReadError naming the path
// ("gpus[2].memory.used_bytes: expected an unsigned integer, got string").
// A key that is absent keeps the model's default; null is accepted only
// where the model has an optional. Unknown keys are ignored (docs/json.md:
// new keys may appear without a schema bump).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/describe.h"
#include "model/enum_words.h"
#include "model/finding.h"
#include "model/incident.h"
#include "model/snapshot.h"

namespace gt::json_read {

using J = nlohmann::ordered_json;

/// Thrown inside the reader only; report_from_json returns it as an Error.
struct ReadError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& what);
[[noreturn]] void wrong_type(const std::string& path, const char* expected, const J& got);

/// An object at `path` (absent or null reads as an empty object).
class Obj {
 public:
  Obj(const J& j, std::string path);
  /// The member, or nullptr when absent.
  const J* find(const char* key) const;
  std::string at(const char* key) const { return path_ + "." + key; }
  /// The member object (an empty one when absent or null).
  Obj sub(const char* key) const;
  /// Reads the member into `out` when present (read(...) below).
  template <typename T>
  void get(const char* key, T& out) const;

 private:
  const J* j_;  ///< null: an empty object
  std::string path_;
};

void read(const J& j, const std::string& path, std::string& out);
void read(const J& j, const std::string& path, bool& out);
void read(const J& j, const std::string& path, double& out);

/// NVML's name of a return code as the collector records it
/// (NvmlLibrary::return_name: "NVML_ERROR_" and capitals, digits or "_").
bool nvml_return_word(const std::string& word);

/// A whole number no 64-bit integer holds (what the parser turns into a
/// double: 1e308, 10**30).
bool integral_beyond_64_bits(double v);

/// Any integer field: an integer JSON number within the field's range.
template <typename T>
requires(std::is_integral_v<T> &&
         !std::is_same_v<T, bool>) void read(const J& j, const std::string& path, T& out) {
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) fail(path, "out of range");
    out = static_cast<T>(v);
  } else if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (std::is_unsigned_v<T> && v < 0) fail(path, "negative where it cannot be");
    if constexpr (std::is_signed_v<T>)
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
        fail(path, "out of range");
    out = static_cast<T>(v);
  } else if (j.is_number_float() && integral_beyond_64_bits(j.get<double>())) {
    // 1e308 or 10**30: the parser gives a double for an integer too wide
    // for 64 bits; it is whole, not fractional.
    fail(path, "out of range");
  } else {
    wrong_type(path, "an integer", j);
  }
}

/// "0x00000000000000FF" (json_util::hex_opt) -> the number; null -> nullopt.
void read_hex(const J& j, const std::string& path, std::optional<uint64_t>& out);
void read_hex(const J& j, const std::string& path, std::optional<uint32_t>& out);
/// "2026-11-29T16:15:27Z" (format_utc) -> Unix seconds; null -> nullopt.
void read_time(const J& j, const std::string& path, std::optional<int64_t>& out);
/// "0-31,64-95" (format_cpu_list) -> the CPUs; anything else is an error.
void read(const J& j, const std::string& path, CpuList& out);
/// A string, or null for "" (the renderers write an empty text as null).
void read_or_empty(const J& j, const std::string& path, std::string& out);
/// Fails unless `j` is within `w` (model/describe.h): a list of at most
/// w.max items (each text of it at most w.each bytes), a text of at most
/// w.max bytes.
void check_within(const J& j, const std::string& path, const Within& w);
/// Unix seconds within 1970..9999 (PlausibleTime): another is an error.
void read_unix_s(const J& j, const std::string& path, int64_t& out);
/// The same, or null; another time reads as unknown.
void read_unix_s(const J& j, const std::string& path, std::optional<int64_t>& out);
/// "P0".."P15" -> 0..15 (any "P" and the number the writer writes).
void read_pstate(const J& j, const std::string& path, std::optional<uint32_t>& out);
/// Hex masks ("0x..." each), never null in the array.
void read_masks(const J& j, const std::string& path, std::vector<uint64_t>& out);
/// "unknown(N)" -> N; nullopt for any other word.
std::optional<uint32_t> unknown_code(const std::string& path, const std::string& word);

/// The enums the report writes through their one name function (model/):
/// each lists its values once, so the word reads back as the value and any
/// other word is an error naming the key, never a default.
template <typename E>
struct EnumWords;
template <>
struct EnumWords<Origin> {
  static constexpr std::array all{Origin::kNvml, Origin::kCapture, Origin::kGathered};
  static const char* name(Origin o) { return origin_name(o); }
  static constexpr const char* what = "an origin";
};
template <>
struct EnumWords<GpuStatus> {
  static constexpr std::array all{GpuStatus::kOk, GpuStatus::kLost, GpuStatus::kUnresponsive,
                                  GpuStatus::kInaccessible};
  static const char* name(GpuStatus s) { return gpu_status_name(s); }
  static constexpr const char* what = "a GPU status";
};
template <>
struct EnumWords<Severity> {
  static constexpr std::array all{Severity::kOk, Severity::kInfo, Severity::kWarning,
                                  Severity::kCritical};
  static const char* name(Severity s) { return severity_name(s); }
  static constexpr const char* what = "a severity";
};

// The three below have a value for what this version cannot name (never
// read as healthy): a word a newer gpu-triage writes becomes it, so one new
// NVML value does not turn a whole fleet host UNKNOWN.
template <>
struct EnumWords<RecoveryAction> {
  static constexpr auto all = kRecoveryActions;
  static constexpr RecoveryAction newer = RecoveryAction::kUnknown;
  static const char* name(RecoveryAction a) { return recovery_action_name(a); }
  static constexpr const char* what = "a recovery action";
};
template <>
struct EnumWords<FabricState> {
  static constexpr auto all = kFabricStates;
  static constexpr FabricState newer = FabricState::kUnknown;
  static const char* name(FabricState s) { return fabric_state_name(s); }
  static constexpr const char* what = "a fabric state";
};
template <>
struct EnumWords<FabricHealthSummary> {
  static constexpr auto all = kFabricHealthSummaries;
  static constexpr FabricHealthSummary newer = FabricHealthSummary::kUnknown;
  static const char* name(FabricHealthSummary s) { return fabric_health_summary_name(s); }
  static constexpr const char* what = "a fabric health summary";
};
template <>
struct EnumWords<EventKind> {
  static constexpr auto all = kEventKinds;
  static const char* name(EventKind k) { return event_kind_name(k); }
  static constexpr const char* what = "a kernel-log event kind";
};
template <>
struct EnumWords<LogBoot> {
  static constexpr auto all = kLogBoots;
  static const char* name(LogBoot b) { return log_boot_name(b); }
  static constexpr const char* what = "a kernel-log boot";
};

// "cgroup" is the owner of a cgroup path of no known form, not where a word
// this version does not know goes (free would then treat a newer kind's
// server as ownerless): such a word is an error.
template <>
struct EnumWords<OwnerKind> {
  static constexpr auto all = kOwnerKinds;
  static const char* name(OwnerKind k) { return owner_kind_name(k); }
  static constexpr const char* what = "an owner kind";
};

template <>
struct EnumWords<MountProblem> {
  static constexpr auto all = kMountProblems;
  static const char* name(MountProblem p) { return mount_problem_name(p); }
  static constexpr const char* what = "a mount problem";
};

// "unknown" is a value of its own (the journal was not read), not where a
// word this version does not know goes: such a word is an error too.
template <>
struct EnumWords<BootEnding> {
  static constexpr auto all = kBootEndings;
  static const char* name(BootEnding e) { return boot_ending_name(e); }
  static constexpr const char* what = "a boot ending";
};

template <typename E>
requires std::is_enum_v<E>
void read(const J& j, const std::string& path, E& out) {
  std::string word;
  read(j, path, word);
  if (std::optional<E> v = enum_of_word(EnumWords<E>::all, EnumWords<E>::name, word)) {
    out = *v;
    return;
  }
  if constexpr (requires { EnumWords<E>::newer; }) {
    out = EnumWords<E>::newer;
    return;
  }
  fail(path, std::string("not ") + EnumWords<E>::what + ": \"" + word.substr(0, 40) + "\"");
}

// Declared first: an optional vector and a vector of optionals both resolve.
template <typename T>
void read(const J& j, const std::string& path, std::optional<T>& out);
template <typename T>
void read(const J& j, const std::string& path, std::vector<T>& out);
/// A described model type (model/describe.h): each field by its key.
template <Described T>
void read(const J& j, const std::string& path, T& out);

template <typename T>
void read(const J& j, const std::string& path, std::optional<T>& out) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  T v{};
  read(j, path, v);
  out = std::move(v);
}

template <typename T>
void read(const J& j, const std::string& path, std::vector<T>& out) {
  if (!j.is_array()) wrong_type(path, "an array", j);
  out.clear();
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    T v{};
    read(j.at(i), path + "[" + std::to_string(i) + "]", v);
    out.push_back(std::move(v));
  }
}

/// An array of objects, each built by `each(element, path)`.
template <typename T, typename F>
void read_each(const J& j, const std::string& path, std::vector<T>& out, F each) {
  if (!j.is_array()) wrong_type(path, "an array", j);
  out.clear();
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i)
    out.push_back(each(j.at(i), path + "[" + std::to_string(i) + "]"));
}

template <typename T>
void Obj::get(const char* key, T& out) const {
  if (const J* v = find(key)) read(*v, at(key), out);
}

/// The tags (model/describe.h) whose field reads as its plain value.
template <typename Tag>
inline constexpr bool kReadsPlain = false;
template <>
inline constexpr bool kReadsPlain<OmitWhenNull> = true;
template <>
inline constexpr bool kReadsPlain<OmitWhenEmpty> = true;
template <typename P>
inline constexpr bool kReadsPlain<MigProcessPids<P>> = true;
template <typename O>
inline constexpr bool kReadsPlain<NvmlOf<O>> = true;
template <>
inline constexpr bool kReadsPlain<Required> = true;

/// Whether the description's key must be present (model/describe.h: the
/// record across boots' stricter contract); any other absent key keeps the
/// field's default.
template <typename F, typename Tag>
constexpr bool required(const F&, const Tag&) {
  return false;
}
template <typename F>
constexpr bool required(const F&, const Within& w) {
  return w.key == KeyIs::kRequired;
}
template <typename F>
constexpr bool required(const F&, const Required&) {
  return true;
}
inline bool required(const int64_t&, const PlausibleTime&) { return true; }
template <typename F, typename S>
constexpr bool required(const F&, const SharedKey<S>& k) {
  return k.within.key == KeyIs::kRequired;
}

/// The reader of a description: each field read when its key is present,
/// in the form its tag names (model/describe.h).
class Reader {
 public:
  explicit Reader(const Obj& o) : o_(o) {}
  template <typename F>
  void operator()(const char* key, F& field) const {
    o_.get(key, field);
  }
  template <typename F, typename Tag>
  void operator()(const char* key, F& field, const Tag& tag) const {
    if (const J* v = o_.find(key))
      take(*v, o_.at(key), field, tag);
    else if (required(field, tag))
      fail(o_.at(key), "missing");
  }
  template <typename G>
  void group(const char* key, G&& describe_group) const {
    const Obj sub = o_.sub(key);
    Reader r(sub);
    describe_group(r);
  }
  /// A value the writer adds that no field holds: nothing to read.
  template <typename V>
  void constant(const char*, const V&) const {}

 private:
  static void take(const J& j, const std::string& p, std::optional<int64_t>& f, AsTime) {
    read_time(j, p, f);
  }
  static void take(const J&, const std::string&, const std::optional<int64_t>&, TimeView) {}
  template <typename N, int D>
  static void take(const J& j, const std::string& p, std::optional<N>& f, AsHex<D>) {
    std::optional<uint64_t> wide;
    read_hex(j, p, wide);
    if (wide && *wide > std::numeric_limits<N>::max()) fail(p, "out of range");
    f = wide ? std::optional<N>(static_cast<N>(*wide)) : std::nullopt;
  }
  static void take(const J& j, const std::string& p, std::vector<uint64_t>& f, AsHex<16>) {
    read_masks(j, p, f);
  }
  static void take(const J& j, const std::string& p, std::optional<uint32_t>& f, AsPstate) {
    read_pstate(j, p, f);
  }
  /// A word, or "unknown(N)" for NVML's number this version cannot name:
  /// the enum's value for what it cannot name, and the number.
  template <typename E>
  static void take(const J& j, const std::string& p, std::optional<E>& f,
                   WithCode<std::optional<uint32_t>> tag) {
    std::optional<std::string> w;
    read(j, p, w);
    if (!w) return;
    if (const std::optional<uint32_t> n = unknown_code(p, *w)) {
      f = E::kUnknown;
      tag.code = n;
      return;
    }
    E e{};
    read(J(*w), p, e);
    f = e;
  }
  template <typename F>
  static void take(const J&, const std::string&, const F&, ClockReasonNames) {}
  static void take(const J& j, const std::string& p, std::string& f, EmptyAsNull) {
    read_or_empty(j, p, f);
  }
  template <typename F>
  static void take(const J&, const std::string&, const F&, WrittenOnly) {}
  /// A tag that changes only how (or whether) the field is written: read
  /// as its plain value.
  template <typename F, typename Tag>
  requires kReadsPlain<Tag>
  static void take(const J& j, const std::string& p, F& f, const Tag&) { read(j, p, f); }
  /// Written null for the default value (NullWhenDefault), or read as it
  /// (NullAsDefault): null is the default here, never an error.
  template <typename F, typename Tag>
  requires(std::is_same_v<Tag, NullAsDefault> ||
           std::is_same_v<Tag, NullWhenDefault>) static void take(const J& j, const std::string& p,
                                                                  F& f, const Tag&) {
    if (!j.is_null()) read(j, p, f);
  }
  /// An outcome's name, else NVML's return name (an NVML_ERROR_ word this
  /// version cannot name: kOtherNvmlError, the word kept; any other word is
  /// an error); a word NVML returned is kept as its return name too, as the
  /// collectors record it.
  static void take(const J& j, const std::string& p, std::optional<NvmlInitError>& f,
                   InitErrorWord<std::optional<std::string>> tag) {
    std::optional<std::string> word;
    read(j, p, word);
    if (!word) return;
    const std::optional<NvmlInitError> known = parse_nvml_init_error(*word);
    if (!known && !nvml_return_word(*word))
      fail(p, "not an NVML initialization error: \"" + word->substr(0, 40) + "\"");
    const NvmlInitError e = known.value_or(NvmlInitError::kOtherNvmlError);
    f = e;
    if (nvml_returned(e)) tag.name = *word;
  }
  template <typename F>
  static void take(const J& j, const std::string& p, std::optional<GpuHistory>& f,
                   WithFingerprint<F> tag) {
    read(j, p, f);
    if (f) Obj(j, p).get("fingerprint", tag.fingerprint);
  }
  template <typename F>
  static void take(const J& j, const std::string& p, F& f, const Within& w) {
    if (j.is_null() && w.key == KeyIs::kMayBeAbsentOrNull) {
      f = F{};
      return;
    }
    check_within(j, p, w);
    read(j, p, f);
  }
  template <typename F>
  static void take(const J& j, const std::string& p, F& f, PlausibleTime) {
    read_unix_s(j, p, f);
  }
  /// Each object without the key takes the parent's value.
  template <typename T, typename S>
  static void take(const J& j, const std::string& p, std::vector<T>& f, const SharedKey<S>& k) {
    check_within(j, p, k.within);
    if (!j.is_array()) wrong_type(p, "an array", j);
    f.clear();
    f.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      const J& e = j.at(i);
      J whole;
      if (e.is_object() && !e.contains(k.key)) {
        whole = e;
        whole[k.key] = k.parent;
      }
      read(whole.is_null() ? e : whole, p + "[" + std::to_string(i) + "]", f.emplace_back());
    }
  }
  template <typename V>
  static void take(const J& j, const std::string& p, std::vector<std::pair<std::string, V>>& f,
                   AsObject) {
    if (!j.is_object()) wrong_type(p, "an object", j);
    f.clear();
    for (const auto& [name, value] : j.items()) {
      V v{};
      read(value, p + "." + name, v);
      f.emplace_back(name, std::move(v));
    }
  }
  template <typename A, typename B>
  static void take(const J& j, const std::string& p, std::pair<A, B>& f, const PairKeys& k) {
    const Obj o(j, p);
    o.get(k.first, f.first);
    o.get(k.second, f.second);
  }
  template <typename A, typename B>
  static void take(const J& j, const std::string& p, std::optional<std::pair<A, B>>& f,
                   const PairKeys& k) {
    if (j.is_null()) {
      f.reset();
      return;
    }
    take(j, p, f.emplace(), k);
  }
  template <typename A, typename B>
  static void take(const J& j, const std::string& p, std::vector<std::pair<A, B>>& f,
                   const PairKeys& k) {
    if (!j.is_array()) wrong_type(p, "an array", j);
    f.clear();
    for (size_t i = 0; i < j.size(); ++i)
      take(j.at(i), p + "[" + std::to_string(i) + "]", f.emplace_back(), k);
  }

  const Obj& o_;
};

template <Described T>
void read(const J& j, const std::string& path, T& out) {
  // Null only where the model has an optional (read above): a GPU, a
  // finding, a process is an object, never read as its defaults.
  if (j.is_null()) wrong_type(path, "an object", j);
  const Obj o(j, path);
  const Reader r(o);
  describe(out, r);
}

}  // namespace gt::json_read
