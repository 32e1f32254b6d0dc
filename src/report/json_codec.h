// The JSON writer of a described model type (model/describe.h): its
// fields as keys in the description's order, unknown as null, each tagged
// field in the form its tag names. The reader is json_read.h's read() of a
// Described type; the two are derived from the one description.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/cpu_list.h"
#include "model/describe.h"
#include "model/fabric_state.h"
#include "model/snapshot.h"
#include "report/json_read.h"
#include "report/json_util.h"

namespace gt::json_codec {

using J = nlohmann::ordered_json;

template <typename T>
J write(const T& v);

/// The writer of a description: each field as a key of `out`.
class Writer {
 public:
  explicit Writer(J& out) : out_(out) {}
  template <typename F>
  void operator()(const char* key, const F& field) const {
    out_[key] = write(field);
  }
  template <typename F, typename Tag>
  void operator()(const char* key, const F& field, const Tag& tag) const {
    put(key, field, tag);
  }
  template <typename G>
  void group(const char* key, G&& describe_group) const {
    J sub = J::object();
    const Writer w(sub);
    describe_group(w);
    out_[key] = std::move(sub);
  }
  template <typename V>
  void constant(const char* key, const V& v) const {
    out_[key] = v;
  }

 private:
  void put(const char* key, const std::optional<int64_t>& f, AsTime) const {
    out_[key] = json_util::iso_time(f);
  }
  void put(const char* key, const std::optional<int64_t>& f, TimeView) const {
    out_[key] = json_util::iso_time(f);
  }
  template <typename N, int D>
  void put(const char* key, const std::optional<N>& f, AsHex<D>) const {
    out_[key] = json_util::hex_opt(f ? std::optional<uint64_t>(*f) : std::nullopt, D);
  }
  void put(const char* key, const std::vector<uint64_t>& f, AsHex<16>) const {
    J a = J::array();
    for (uint64_t m : f) a.push_back(json_util::hex_opt(m, 16));
    out_[key] = std::move(a);
  }
  void put(const char* key, const std::optional<uint32_t>& f, AsPstate) const {
    out_[key] = f ? J("P" + std::to_string(*f)) : J(nullptr);
  }
  template <typename E, typename C>
  void put(const char* key, const std::optional<E>& f, WithCode<C> tag) const {
    out_[key] = f ? J(name_with_code(json_read::EnumWords<E>::name(*f), tag.code)) : J(nullptr);
  }
  void put(const char* key, const std::optional<uint64_t>& f, ClockReasonNames) const {
    out_[key] = f ? J(clock_event_reason_names(*f)) : J(nullptr);
  }
  template <typename P>
  void put(const char* key, const std::optional<std::vector<MigDevice>>& f,
           MigProcessPids<P> tag) const {
    if (!f) {
      out_[key] = nullptr;
      return;
    }
    J a = J::array();
    for (const MigDevice& m : *f) {
      J each = write(m);
      each["process_pids"] = mig_pids(tag.processes, m);
      a.push_back(std::move(each));
    }
    out_[key] = std::move(a);
  }
  /// The processes of one MIG device: the parent's with its instance ids.
  static J mig_pids(const std::optional<std::vector<GpuProcess>>& processes, const MigDevice& m) {
    if (!processes) return nullptr;
    J a = J::array();
    for (const GpuProcess& p : *processes)
      if (p.gpu_instance_id && p.gpu_instance_id == m.gpu_instance_id &&
          (!m.compute_instance_id || p.compute_instance_id == m.compute_instance_id))
        a.push_back(p.pid);
    return a;
  }
  void put(const char* key, const std::string& f, EmptyAsNull) const {
    out_[key] = f.empty() ? J(nullptr) : J(f);
  }
  template <typename F>
  void put(const char* key, const std::optional<F>& f, OmitWhenNull) const {
    if (f) out_[key] = write(*f);
  }
  /// A tag that changes only how the field is read: written plain.
  template <typename F, typename Tag>
  requires(std::is_same_v<Tag, WrittenOnly> || std::is_same_v<Tag, NullAsDefault> ||
           std::is_same_v<Tag, Required> ||
           std::is_same_v<Tag, PlausibleTime>) void put(const char* key, const F& f,
                                                        const Tag&) const {
    out_[key] = write(f);
  }
  template <typename F>
  void put(const char* key, const F& f, const Within& w) const {
    if constexpr (requires { f.empty(); })
      if (w.key == KeyIs::kOmittedWhenEmpty && f.empty()) return;
    out_[key] = write(f);
  }
  template <typename T, typename S>
  void put(const char* key, const std::vector<T>& f, const SharedKey<S>& tag) const {
    const J parent = write(tag.parent);
    J a = J::array();
    for (const T& e : f) {
      J each = write(e);
      if (each.contains(tag.key) && each.at(tag.key) == parent) each.erase(tag.key);
      a.push_back(std::move(each));
    }
    out_[key] = std::move(a);
  }
  template <typename N>
  void put(const char* key, const std::optional<NvmlInitError>& f, InitErrorWord<N> tag) const {
    out_[key] = f ? J(nvml_init_error_word(*f, tag.name)) : J(nullptr);
  }
  template <typename O>
  void put(const char* key, const NvmlStatus& f, NvmlOf<O> tag) const {
    J n = write(f);
    if (tag.origin != Origin::kNvml) n["loaded"] = n["initialized"] = nullptr;
    out_[key] = std::move(n);
  }
  /// The record as read before judging (this run not yet in it), then
  /// this run's fingerprint; null when not read.
  template <typename F>
  void put(const char* key, const std::optional<GpuHistory>& f, WithFingerprint<F> tag) const {
    if (!f) {
      out_[key] = nullptr;
      return;
    }
    J h = write(*f);
    h["fingerprint"] = write(tag.fingerprint);
    out_[key] = std::move(h);
  }
  template <typename F>
  void put(const char* key, const F& f, NullWhenDefault) const {
    out_[key] = f == F{} ? J(nullptr) : write(f);
  }
  template <typename F>
  void put(const char* key, const std::vector<F>& f, OmitWhenEmpty) const {
    if (!f.empty()) out_[key] = write(f);
  }
  template <typename V>
  void put(const char* key, const std::vector<std::pair<std::string, V>>& f, AsObject) const {
    J o = J::object();
    for (const auto& [name, value] : f) o[name] = write(value);
    out_[key] = std::move(o);
  }
  template <typename A, typename B>
  static J pair_json(const std::pair<A, B>& p, const PairKeys& k) {
    return J{{k.first, write(p.first)}, {k.second, write(p.second)}};
  }
  template <typename A, typename B>
  void put(const char* key, const std::optional<std::pair<A, B>>& f, const PairKeys& k) const {
    out_[key] = f ? pair_json(*f, k) : J(nullptr);
  }
  template <typename A, typename B>
  void put(const char* key, const std::vector<std::pair<A, B>>& f, const PairKeys& k) const {
    J a = J::array();
    for (const auto& p : f) a.push_back(pair_json(p, k));
    out_[key] = std::move(a);
  }

  J& out_;
};

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

/// A field's JSON: null for an unknown optional, an array for a list, an
/// enum's word (json_read::EnumWords, the words the reader takes), an
/// object for a described type, the value itself otherwise.
template <typename T>
J write(const T& v) {
  if constexpr (IsOptional<T>::value) {
    return v ? write(*v) : J(nullptr);
  } else if constexpr (IsVector<T>::value) {
    J a = J::array();
    for (const auto& e : v) a.push_back(write(e));
    return a;
  } else if constexpr (std::is_enum_v<T>) {
    return json_read::EnumWords<T>::name(v);
  } else if constexpr (Described<T>) {
    J o = J::object();
    const Writer w(o);
    describe(v, w);
    return o;
  } else if constexpr (std::is_same_v<T, CpuList>) {
    return format_cpu_list(v);
  } else {
    return J(v);
  }
}

}  // namespace gt::json_codec
