// Sample layouts of the real pipelines: where the sample index is in a path.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gt {

enum class Layout {
  kAuto,
  kSpecForge,    ///< rows_<g>-<g+n>/data_<idx>.ckpt[.gz]; idx is the global index
  kEagle,        ///< <worker>/data_<k>.ckpt; k counts that worker's directory
  kSpeculators,  ///< data_<i>.pt
  kFlat,         ///< <stem><digits><ext>, consistently named
  kNone,         ///< no numbered files found
};

/// "specforge", "eagle", "speculators", "flat", "none", "auto".
const char* layout_name(Layout l);
/// Parses a --layout value; nullopt if unknown.
std::optional<Layout> parse_layout(std::string_view name);

/// A layout plus, for kFlat, the learned stem and extension.
struct LayoutSpec {
  Layout kind = Layout::kNone;
  std::string stem, ext;  ///< kFlat only: "sample_" and ".npy"
  bool operator==(const LayoutSpec&) const = default;
};

/// A sample's identity. `group` is empty for global indices; for EAGLE it is
/// the worker directory, whose k values are numbered independently.
struct SampleKey {
  std::string group;
  int64_t index = 0;
  auto operator<=>(const SampleKey&) const = default;
  /// "123", or "<worker>/<k>" for EAGLE.
  std::string text() const;
};

/// The sample key of `rel_path` (relative to the scanned DIR) under
/// `spec`, or nullopt when the file is not a sample of that layout.
std::optional<SampleKey> sample_key(const LayoutSpec& spec, std::string_view rel_path);

/// sample_key's index alone (kNoSample: no sample); its group is
/// sample_group's.
constexpr int64_t kNoSample = INT64_MIN;
int64_t sample_index(const LayoutSpec& spec, std::string_view rel_path);
/// The group of a sample's key under `spec`: EAGLE's worker folder, else "".
std::string_view sample_group(const LayoutSpec& spec, std::string_view rel_path);

/// Picks the layout that names the most files (ties: SpecForge, EAGLE,
/// speculators, flat). A requested layout other than kAuto is kept (for kFlat
/// the stem and extension are still learned).
LayoutSpec detect_layout(Layout requested, const std::vector<std::string_view>& rel_paths);

/// True for the stale temporary names writers leave behind: `.tmp*`,
/// `*.tmp`, `*.partial` (not samples, reported apart).
bool is_stale_temp(std::string_view basename);

/// A lock file (*.lock, *.lck, "lock") or a zero-byte marker (.keep,
/// .gitkeep, _SUCCESS, .done): not a sample, never bad.
bool is_marker_or_lock(std::string_view basename, uint64_t size_bytes);

}  // namespace gt
