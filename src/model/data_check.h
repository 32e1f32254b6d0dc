// What `gpu-triage --data DIR` found in the job's output, as plain data for
// the checks and renderers (the full report is `gpu-triage data`'s).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/describe.h"

namespace gt {

struct DataCheck {
  std::string dir;                   ///< as given
  std::optional<std::string> error;  ///< why it could not be checked at all
  bool deep = false;                 ///< every CRC checked (--deep)
  std::optional<int64_t> expect;     ///< --expect N
  /// Samples whose index is at or beyond --expect (outside the range).
  uint64_t outside_expect = 0;
  std::string layout;  ///< "specforge", "eagle", "speculators", "flat", "none"
  uint64_t files = 0;
  uint64_t intact_files = 0;
  uint64_t samples = 0;      ///< distinct intact samples
  uint64_t crc_checked = 0;  ///< files read whole with every CRC checked
  /// Bad files: path and problem word ("truncated", "zero-filled", "crc"...),
  /// the first kMaxListed; bad_count is all of them.
  std::vector<std::pair<std::string, std::string>> bad;
  uint64_t bad_count = 0;
  uint64_t gap_count = 0;    ///< missing indices below the highest one seen
  std::string gaps;          ///< "12, 40-41" (the first runs)
  uint64_t not_started = 0;  ///< indices above the highest, to --expect
  std::optional<std::pair<int64_t, int64_t>> not_started_range;  ///< first, last
  bool layout_skips_samples = false;  ///< a gap may be expected (SpecForge skips NaN samples)
  std::vector<std::string> stale;     ///< temporary files left by a writer that died
  std::string stale_advice;
  std::vector<std::string> writers;        ///< "pid 4242 (python3) has DIR/x open for writing"
  std::vector<std::string> errors;         ///< files or directories that could not be read
  std::vector<std::string> how_to_resume;  ///< the layout's resume paragraph
  /// The command that moves the bad files away so the pipeline redoes
  /// them (gpu-triage data ... --deep --move-bad-to SIBLING); empty when
  /// nothing is bad.
  std::string move_command;
  /// Why no move command is given although files are bad (a process still
  /// writes there, files written in the last minutes, EAGLE's layout, no
  /// destination on DIR's filesystem outside it...).
  std::string move_withheld;
  std::optional<int64_t> last_write_unix_s;  ///< newest sample: when writing stopped

  static constexpr size_t kMaxListed = 20;
  bool operator==(const DataCheck&) const = default;
};

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<DataCheck> auto& d, auto& v) {
  v("dir", d.dir);
  v("error", d.error);
  v("deep", d.deep);
  v("expect", d.expect);
  v("outside_expect", d.outside_expect);
  v("layout", d.layout);
  v("files", d.files);
  v("intact_files", d.intact_files);
  v("samples", d.samples);
  v("crc_checked", d.crc_checked);
  v("bad_count", d.bad_count);
  v("bad", d.bad, PairKeys{"path", "problem"});
  v("gap_count", d.gap_count);
  v("gaps", d.gaps);
  v("not_started", d.not_started);
  v("not_started_range", d.not_started_range, PairKeys{"first", "last"});
  v("layout_skips_samples", d.layout_skips_samples);
  v("stale", d.stale);
  v("stale_advice", d.stale_advice, EmptyAsNull{});
  v("writers", d.writers);
  v("errors", d.errors);
  v("how_to_resume", d.how_to_resume);
  v("move_command", d.move_command, EmptyAsNull{});
  v("move_withheld", d.move_withheld, EmptyAsNull{});
  v("last_write", d.last_write_unix_s, AsTime{});
}

}  // namespace gt
