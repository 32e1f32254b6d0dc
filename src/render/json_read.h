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

// The report's larger parts, one file each (json_report_read.cc has the rest).
GpuState gpu_of(const J& j, const std::string& path);       ///< json_gpu_read.cc
Incident incident_of(const J& j, const std::string& path);  ///< incident_read.cc

}  // namespace gt::json_read
