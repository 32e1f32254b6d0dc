// The job's output, checked inside the triage (`--data DIR`): bad files,
// gaps, the not-started rest, a writer still at work, stale temporary
// files. The resume commands come from the layout's own resume rule
// (data/resume_advice.cc), so the plan's data step is the one
// `gpu-triage data` would give.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "checks/checks.h"
#include "util/plural.h"
#include "util/shell_word.h"

namespace gt {
namespace {

Finding data_finding(const char* id, const DataCheck& d) { return path_finding(id, d.dir); }

std::string resume_text(const DataCheck& d) {
  return fmt::format("{}", fmt::join(d.how_to_resume, " "));
}

/// "2 truncated, 1 crc".
std::string problem_counts(const DataCheck& d) {
  std::map<std::string, int> n;
  for (const auto& [path, problem] : d.bad) ++n[problem];
  std::vector<std::string> parts;
  for (const auto& [problem, count] : n) parts.push_back(fmt::format("{} {}", count, problem));
  std::string s = fmt::format("{}", fmt::join(parts, ", "));
  if (d.bad_count > d.bad.size()) s += fmt::format(" among the first {}", d.bad.size());
  return s;
}

std::string quick_note(const DataCheck& d) {
  if (d.deep) return "";
  return fmt::format(
      "Quick mode: every file's structure was checked, the CRC32 of the {} written last; "
      "an older file's damaged bytes show only with --deep.",
      count_of(d.crc_checked, "file", "files"));
}

void bad_files(const DataCheck& d, std::vector<Finding>& out) {
  if (d.bad_count == 0) return;
  Finding f = data_finding("data.bad", d);
  f.title =
      fmt::format("{}: {} ({}); {} intact", d.dir, count_of(d.bad_count, "bad file", "bad files"),
                  problem_counts(d), count_of(d.samples, "sample", "samples"));
  std::vector<std::string> first;
  for (size_t i = 0; i < d.bad.size() && i < 5; ++i)
    first.push_back(d.bad[i].first + " (" + d.bad[i].second + ")");
  f.evidence =
      fmt::format("{}{}", fmt::join(first, "; "), d.bad_count > first.size() ? "; ..." : "");
  if (!d.deep) f.evidence += " " + quick_note(d);
  f.action = resume_text(d);  // says why the move waits, when it does
  if (!d.move_command.empty()) f.commands = {d.move_command};
  out.push_back(f);
}

void gaps(const DataCheck& d, std::vector<Finding>& out) {
  if (d.gap_count == 0) return;
  Finding f = data_finding("data.missing", d);
  f.title = fmt::format("{}: {} missing below the highest index ({})", d.dir,
                        count_of(d.gap_count, "sample", "samples"), d.gaps);
  f.evidence = d.layout_skips_samples
                   ? "layout " + d.layout +
                         ": this pipeline skips samples that produced NaN, so a gap may be "
                         "expected; the others must be redone"
                   : "layout " + d.layout;
  // With bad files too, data.bad's paragraph already says how the rerun
  // redoes the gaps: one paragraph per cause, not the same one twice.
  f.action = d.bad_count > 0 ? "The rerun in the bad files' step redoes them." : resume_text(d);
  if (!d.move_command.empty()) f.commands = {d.move_command};
  out.push_back(f);
}

void not_started(const DataCheck& d, std::vector<Finding>& out) {
  if (d.not_started == 0 || !d.not_started_range) return;
  Finding f = data_finding("data.not_started", d);
  f.title =
      fmt::format("{}: {} not started ({}-{})", d.dir, count_of(d.not_started, "sample", "samples"),
                  d.not_started_range->first, d.not_started_range->second);
  f.evidence = fmt::format("{} written; the rest was never begun",
                           count_of(d.samples, "intact sample", "intact samples"));
  // The rerun, last in the plan, when no bad file, gap or writer's step
  // says it already (one paragraph per cause).
  if (d.bad_count == 0 && d.gap_count == 0 && d.writers.empty()) {
    f.action = resume_text(d);
    // Quick mode read the CRC of the last files only: the whole check is
    // one command away, before the rerun builds on them.
    if (!d.deep) {
      f.action = fmt::format(
                     "First verify every written file (quick mode read the CRC32 of only {}): "
                     "the command below. ",
                     count_of(d.crc_checked, "file", "files")) +
                 f.action;
      f.commands = {"gpu-triage data " + shell_word(d.dir) + " --deep" +
                    (d.expect ? fmt::format(" --expect {}", *d.expect) : std::string())};
    }
  }
  out.push_back(f);
}

void writers(const DataCheck& d, std::vector<Finding>& out) {
  if (d.writers.empty()) return;
  Finding f = data_finding("data.writer_active", d);
  f.title = fmt::format("{}: a process still writes into it", d.dir);
  f.evidence = fmt::format("{}", fmt::join(d.writers, "; "));
  f.action =
      "The job (or something else) is still running: let it finish or stop it before moving "
      "files or resuming, or the two runs write the same samples.";
  out.push_back(f);
}

void stale(const DataCheck& d, std::vector<Finding>& out) {
  if (d.stale.empty()) return;
  Finding f = data_finding("data.stale", d);
  f.title = fmt::format("{}: {}", d.dir,
                        count_of(d.stale.size(), "stale temporary file", "stale temporary files"));
  f.evidence = fmt::format(
      "{}",
      fmt::join(d.stale.begin(), d.stale.begin() + std::min<size_t>(d.stale.size(), 5), "; "));
  f.action = d.stale_advice;
  out.push_back(f);
}

void unreadable(const DataCheck& d, std::vector<Finding>& out) {
  if (!d.error && d.errors.empty()) return;
  Finding f = data_finding("data.unreadable", d);
  f.title = d.error ? d.dir + ": cannot be checked" : d.dir + ": some files could not be read";
  f.evidence = d.error ? *d.error : fmt::format("{}", fmt::join(d.errors, "; "));
  f.action =
      "Check the path, the mount and the permissions; run `gpu-triage data` as the job's "
      "user or as root.";
  out.push_back(f);
}

/// The mount problem of the volume that should hold DIR, if any: until it
/// is mounted (read-write, the configured device), what DIR holds is
/// another filesystem's, so no data finding and no resume step is given.
const MountInfo* volume_not_ready(const NodeSnapshot& s, const DataCheck& d) {
  for (const MountInfo& m : s.mounts)
    if (m.path == d.dir && m.problem &&
        (*m.problem == MountProblem::kNotMounted || *m.problem == MountProblem::kWrongDevice ||
         *m.problem == MountProblem::kReadOnly))
      return &m;
  return nullptr;
}

/// --expect N said and the files disagree: nothing there at all, or
/// samples with an index at or beyond N (a wrong N, or another job's files).
void expect_mismatch(const DataCheck& d, std::vector<Finding>& out) {
  if (!d.expect) return;
  if (d.files == 0) {
    Finding f = data_finding("data.expect_mismatch", d);
    f.title = fmt::format("{}: no files at all, although --expect {} was given", d.dir, *d.expect);
    f.evidence = "an empty directory: the job wrote nowhere near it, or it writes elsewhere";
    f.action =
        "Check that DIR is the job's output directory and that its volume is mounted before "
        "restarting anything.";
    out.push_back(f);
  } else if (d.outside_expect > 0) {
    Finding f = data_finding("data.expect_mismatch", d);
    f.title = fmt::format("{}: {} sample(s) have an index beyond --expect {} (not checked)", d.dir,
                          d.outside_expect, *d.expect);
    f.evidence = fmt::format(
        "{} file(s) judged within 0-{}; the samples beyond are outside the range and were not "
        "judged",
        d.files - d.outside_expect, *d.expect - 1);
    f.action = "Check --expect: the job's sample count is larger, or another job writes here.";
    out.push_back(f);
  }
}

}  // namespace

void check_data(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.data) return;
  const DataCheck& d = *s.data;
  if (volume_not_ready(s, d)) return;  // the mount.* finding says it and comes first
  unreadable(d, out);
  if (d.error) return;
  expect_mismatch(d, out);
  writers(d, out);
  bad_files(d, out);
  gaps(d, out);
  not_started(d, out);
  stale(d, out);
  if (d.bad_count == 0 && d.gap_count == 0 && d.errors.empty() && d.files > 0) {
    Finding f = data_finding("data.intact", d);
    f.title =
        fmt::format("{}: {} in {}, all intact{}", d.dir, count_of(d.samples, "sample", "samples"),
                    count_of(d.files, "file", "files"), d.deep ? "" : " (quick mode)");
    f.evidence = quick_note(d);
    out.push_back(f);
  }
}

}  // namespace gt
