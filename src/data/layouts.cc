// How the pipelines name per-sample files (shared/reference/data-formats.md):
// - SpecForge: <out>/rows_<g>-<g+2000>/data_<idx>.ckpt (or .ckpt.gz with
//   --compress), idx the global dataset index, g = idx // group * group
//   (group 2000, 5000 in v0.1.0). Resume = file exists.
// - EAGLE: <out>/<worker>/data_<k>.ckpt with k = len(os.listdir(dir)) at
//   write time: a count, not a sample index, so a half-written file still
//   takes a number and a restart appends after it. Keys are per worker.
// - vLLM speculators: <out>/data_<i>.pt; resume = highest index + 1, so
//   gaps below the maximum are never revisited.
// - Anything else consistently numbered (sample_00012.npy): "flat".
// Parsing is by hand, not std::regex, to keep 37k paths in milliseconds.
#include "data/layouts.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace gt {
namespace {

std::string_view basename_of(std::string_view p) {
  size_t s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

std::string_view parent_of(std::string_view p) {
  size_t s = p.rfind('/');
  if (s == std::string_view::npos) return {};
  std::string_view dir = p.substr(0, s);
  size_t t = dir.rfind('/');
  return t == std::string_view::npos ? dir : dir.substr(t + 1);
}

std::string_view dir_of(std::string_view p) {
  size_t s = p.rfind('/');
  return s == std::string_view::npos ? std::string_view{} : p.substr(0, s);
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> to_int(std::string_view s) {
  if (!all_digits(s)) return std::nullopt;
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

constexpr unsigned bit(Layout l) { return 1u << static_cast<unsigned>(l); }

// The fixed layouts whose sample `rel` is (bits of Layout), all named
// "data_<digits><ext>": SpecForge's rows_<g>-<g+n>/data_<i>.ckpt[.gz],
// EAGLE's <digits>/data_<k>.ckpt, speculators' data_<i>.pt. `base` is
// rel's file name; `index` gets the digits. One parse of the name serves
// all three (detect_layout asks of every name).
unsigned fixed_layouts(std::string_view rel, std::string_view base, int64_t& index) {
  if (!base.starts_with("data_")) return 0;
  size_t end = 5;
  while (end < base.size() && base[end] >= '0' && base[end] <= '9') ++end;
  std::optional<int64_t> i = to_int(base.substr(5, end - 5));
  if (!i) return 0;
  index = *i;
  const std::string_view ext = base.substr(end);
  if (ext == ".pt") return bit(Layout::kSpeculators);
  if (ext != ".ckpt" && ext != ".ckpt.gz") return 0;
  const std::string_view parent = parent_of(rel);
  unsigned out = 0;
  if (parent.starts_with("rows_") && parent.find('-') != std::string_view::npos)
    out |= bit(Layout::kSpecForge);
  if (ext == ".ckpt" && all_digits(parent)) out |= bit(Layout::kEagle);
  return out;
}

// Splits a basename into stem, digits and extension around the last run of
// digits before the first dot after it ("sample_0012.npy" -> "sample_",
// "0012", ".npy").
bool split_numbered(std::string_view base, std::string_view& stem, std::string_view& digits,
                    std::string_view& ext) {
  size_t dot = base.find('.');
  std::string_view name = base.substr(0, dot);
  size_t end = name.size();
  size_t begin = end;
  while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
  if (begin == end) return false;
  stem = name.substr(0, begin);
  digits = name.substr(begin);
  ext = dot == std::string_view::npos ? std::string_view{} : base.substr(dot);
  return true;
}

}  // namespace

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::kAuto:
      return "auto";
    case Layout::kSpecForge:
      return "specforge";
    case Layout::kEagle:
      return "eagle";
    case Layout::kSpeculators:
      return "speculators";
    case Layout::kFlat:
      return "flat";
    case Layout::kNone:
      return "none";
  }
  return "none";
}

std::optional<Layout> parse_layout(std::string_view name) {
  for (Layout l :
       {Layout::kAuto, Layout::kSpecForge, Layout::kEagle, Layout::kSpeculators, Layout::kFlat})
    if (name == layout_name(l)) return l;
  return std::nullopt;
}

std::string SampleKey::text() const {
  return group.empty() ? std::to_string(index) : group + "/" + std::to_string(index);
}

std::optional<SampleKey> sample_key(const LayoutSpec& spec, std::string_view rel) {
  std::string_view base = basename_of(rel);
  if (is_stale_temp(base)) return std::nullopt;
  switch (spec.kind) {
    case Layout::kSpecForge:
    case Layout::kEagle:
    case Layout::kSpeculators: {
      int64_t i = 0;
      if (!(fixed_layouts(rel, base, i) & bit(spec.kind))) return std::nullopt;
      return SampleKey{std::string(sample_group(spec, rel)), i};
    }
    case Layout::kFlat: {
      std::string_view stem, digits, ext;
      if (!split_numbered(base, stem, digits, ext) || stem != spec.stem || ext != spec.ext)
        return std::nullopt;
      std::optional<int64_t> i = to_int(digits);
      if (!i) return std::nullopt;
      return SampleKey{"", *i};
    }
    default:
      return std::nullopt;
  }
}

int64_t sample_index(const LayoutSpec& spec, std::string_view rel) {
  std::optional<SampleKey> k = sample_key(spec, rel);
  return k ? k->index : kNoSample;
}

std::string_view sample_group(const LayoutSpec& spec, std::string_view rel) {
  return spec.kind == Layout::kEagle ? dir_of(rel) : std::string_view{};
}

LayoutSpec detect_layout(Layout requested, const std::vector<std::string_view>& rel_paths) {
  // In one pass over the names: the flat pattern, the most common (stem,
  // extension) among numbered names (views into rel_paths: no copy of each
  // name's parts), and how many names each fixed layout's sample_key takes.
  std::map<std::pair<std::string_view, std::string_view>, size_t> patterns;
  constexpr Layout kFixed[] = {Layout::kSpecForge, Layout::kEagle, Layout::kSpeculators};
  size_t named[std::size(kFixed)] = {};
  const bool any = requested == Layout::kAuto;
  for (std::string_view p : rel_paths) {
    std::string_view stem, digits, ext, base = basename_of(p);
    if (is_stale_temp(base) || !split_numbered(base, stem, digits, ext)) continue;
    ++patterns[{stem, ext}];
    int64_t index = 0;
    const unsigned fixed = any ? fixed_layouts(p, base, index) : 0;
    for (size_t l = 0; l < std::size(kFixed); ++l) named[l] += (fixed & bit(kFixed[l])) != 0;
  }
  LayoutSpec flat{Layout::kFlat};
  size_t best_flat = 0;
  for (const auto& [key, n] : patterns)
    if (n > best_flat) {
      best_flat = n;
      flat.stem = key.first;
      flat.ext = key.second;
    }
  if (requested == Layout::kFlat) return flat;
  if (requested != Layout::kAuto) return LayoutSpec{requested};
  LayoutSpec best{Layout::kNone};
  size_t best_n = 0;
  for (size_t l = 0; l < std::size(kFixed); ++l)
    if (named[l] > best_n) {
      best_n = named[l];
      best = LayoutSpec{kFixed[l]};
    }
  if (best_flat > best_n && best_flat >= 2) return flat;  // one numbered name is no pattern
  return best;
}

bool is_marker_or_lock(std::string_view base, uint64_t size_bytes) {
  if (base.ends_with(".lock") || base.ends_with(".lck") || base == "lock" || base == "LOCK")
    return true;
  // Zero-byte placeholders that keep a directory in git or mark it done.
  return size_bytes == 0 && (base == ".keep" || base == ".gitkeep" || base == ".placeholder" ||
                             base == "_SUCCESS" || base == ".done" || base == "DONE");
}

bool is_stale_temp(std::string_view base) {
  return base.starts_with(".tmp") || base.ends_with(".tmp") || base.ends_with(".partial");
}

}  // namespace gt
