// Reading one <gpu> element of nvidia-smi -q -x: the text of an element by
// path, classified into a value, "not available" or an error, and numbers
// checked against plausible bounds. Shared by the parser's element groups
// (smi_xml_parser.cc, smi_xml_health.cc).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "model/snapshot.h"

namespace gt {

constexpr uint64_t kSmiMiB = 1024ull * 1024ull;
// Plausibility bounds of what nvidia-smi prints; a value outside is unknown.
constexpr double kSmiMaxMemoryMiB = 16.0 * 1024 * 1024;  // 16 TiB; GPUs have well under 1 TiB
constexpr double kSmiMaxCount = 9007199254740992.0;      // 2^53: counters exact in a double
constexpr double kSmiMaxU32 = std::numeric_limits<uint32_t>::max();
constexpr double kSmiMinTemperatureC = -100, kSmiMaxTemperatureC = 300;

/// `s` without surrounding blanks.
std::string smi_trim(std::string_view s);

enum class SmiKind { kValue, kAbsent, kError, kLost };

/// Classifies an element's text: a value, "not available", or an error.
SmiKind smi_classify(const std::string& v);

/// Reads one GPU's elements, recording errors and loss in the GpuState.
class GpuReader {
 public:
  GpuReader(pugi::xml_node node, GpuState& g) : n_(node), g_(g) {}

  /// The text at `path` ("fb_memory_usage/total") when it holds a value.
  std::optional<std::string> text(const char* path);
  /// text(), except that "None" is a word here, not "not available" (the
  /// recovery action and the fabric's incorrect configuration say "None"
  /// for "nothing wrong").
  std::optional<std::string> word(const char* path);
  /// The leading number of the text ("25.58 W" -> 25.58) when it is finite
  /// and within [lo, hi]; else null, with an error.
  std::optional<double> number(const char* path, double lo, double hi);
  std::optional<uint64_t> count(const char* path, double hi = kSmiMaxCount);
  std::optional<uint32_t> u32(const char* path, double hi = kSmiMaxU32);
  std::optional<int32_t> celsius(const char* path);
  std::optional<uint64_t> mib(const char* path);
  /// "Enabled"/"Yes"/"Active" -> true, "Disabled"/"No"/"Not Active" -> false.
  std::optional<bool> flag(const char* path);
  /// "Yes" -> true, "No" -> false; any other word null.
  std::optional<bool> yes_no(const char* path);
  /// The first path that gives a number within [lo, hi].
  std::optional<double> first_number(std::initializer_list<const char*> paths, double lo,
                                     double hi);

  pugi::xml_node node() const { return n_; }
  GpuState& gpu() { return g_; }

 private:
  pugi::xml_node n_;
  GpuState& g_;
};

}  // namespace gt
