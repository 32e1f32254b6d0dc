// How a model type lists its fields once (issue 51): a function
// `describe(self, v)` beside the struct calls `v(key, field)` for each
// field in the order the report writes them, and `v.group(key, fn)` for a
// nested JSON object that has no struct of its own. The codec
// (report/json_codec.h) derives the JSON writer and the reader from it, so
// a field added to a type is one line in its description (and its line in
// docs/json.md, which report/json_docs_test.cc checks against these).
//
// `self` is the type or the const type: one description serves the writer
// (const) and the reader. A field whose JSON form is not its plain value
// names how, with one of the tags below; the codec holds what each means.
// A tag that refers to another field has a deduction guide: clang 14 (the
// ASan build's) has no class template argument deduction for aggregates.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace gt {

/// `T` or `const T`: the self parameter of a description.
template <typename S, typename T>
concept SelfOf = std::same_as<std::remove_const_t<S>, T>;

/// Unix seconds written as "2026-11-29T16:15:27Z" (null when unknown or
/// outside 1970..9999); read back from that text.
struct AsTime {};
/// The same, for a second key beside the field's _unix_s twin: written,
/// not read (the twin is the value).
struct TimeView {};
/// A number as "0x" and `Digits` upper-case hex digits.
template <int Digits>
struct AsHex {};
/// A string written as null when empty; null reads as "".
struct EmptyAsNull {};
/// A key written only when the field holds a value (absent, not null,
/// otherwise: a key older reports never had).
struct OmitWhenNull {};
/// A value written as null when it equals its type's default (nothing of
/// it was read); null reads as the default.
struct NullWhenDefault {};
/// Written, not read back (a value the reader takes from elsewhere).
struct WrittenOnly {};
/// A value read as its default where the JSON has null (the writer writes
/// null for it where it was not asked: a capture's nvml.loaded).
struct NullAsDefault {};
/// NVML init's outcome written as its word, or the word NVML returned
/// (kept in `name`).
template <typename N>
struct InitErrorWord {
  N& name;
};
template <typename N>
InitErrorWord(N&) -> InitErrorWord<N>;
/// The NVML status of a snapshot of origin `origin`: loaded and
/// initialized written null for a capture (this machine's NVML not asked).
template <typename O>
struct NvmlOf {
  O& origin;
};
template <typename O>
NvmlOf(O&) -> NvmlOf<O>;
/// The record across boots with this run's fingerprint inside it.
template <typename F>
struct WithFingerprint {
  F& fingerprint;
};
template <typename F>
WithFingerprint(F&) -> WithFingerprint<F>;
/// A list written only when it is not empty.
struct OmitWhenEmpty {};
/// A list of (name, value) pairs written as one JSON object.
struct AsObject {};
/// A list of pairs (or one optional pair) written as objects with these
/// two keys.
struct PairKeys {
  const char* first;
  const char* second;
};

/// How a key of the record across boots (history/) may be missing when
/// read: the state file's contract is stricter than a report's.
enum class KeyIs {
  kRequired,           ///< a record without it is corrupt
  kMayBeAbsent,        ///< absent (a record written before it was kept): its default
  kMayBeAbsentOrNull,  ///< the same, and null reads as its default too
  kOmittedWhenEmpty,   ///< written only when not empty; absent reads as empty
};
/// A field read only within `max`: bytes of a text, items of a list (and
/// `each`, when not 0, bytes of each text in the list); its key as `key`
/// says. Written plain (kOmittedWhenEmpty: only when not empty).
struct Within {
  size_t max;
  KeyIs key = KeyIs::kRequired;
  size_t each = 0;
};
/// A key that must be present (null only where the field is optional).
struct Required {};
/// Unix seconds as a plain integer within 1970..9999: a required key for an
/// int64_t (another time is an error), null or absent for an optional one
/// (another time reads as unknown: an absurd container start is no year
/// 1550575222).
struct PlausibleTime {};
/// A list of objects whose `key`, where it equals `parent` (the value of
/// the object holding the list), is left out of each (a fingerprint's
/// hundreds of packages and their environment's site-packages), and read
/// back as `parent` where absent; the list read within `within`.
template <typename S>
struct SharedKey {
  const char* key;
  S& parent;
  Within within;
};
template <typename S>
SharedKey(const char*, S&, Within) -> SharedKey<S>;

/// A GPU performance state 0..15 written as "P0".."P15".
struct AsPstate {};
/// An enum NVML numbers, written as its word, or "unknown(N)" with the
/// number this version cannot name (kept in `code`).
template <typename C>
struct WithCode {
  C& code;
};
template <typename C>
WithCode(C&) -> WithCode<C>;
/// Written only: nvidia-smi's names of a clock event reasons mask's bits.
struct ClockReasonNames {};
/// Written only, per MIG device: the PIDs of the parent GPU's processes
/// with its instance ids.
template <typename P>
struct MigProcessPids {
  P& processes;
};
template <typename P>
MigProcessPids(P&) -> MigProcessPids<P>;

}  // namespace gt

namespace gt {

/// A visitor that takes any field: what the Described concept calls a
/// description with (the codec's writer and reader are the real ones).
struct FieldProbe {
  template <typename... A>
  void operator()(const char*, A&&...) {}
  template <typename G>
  void group(const char*, G&&) {}
  template <typename V>
  void constant(const char*, const V&) {}
};

/// A type with a description (found by argument-dependent lookup).
template <typename T>
concept Described = requires(T& t, FieldProbe& p) {
  describe(t, p);
};

}  // namespace gt
