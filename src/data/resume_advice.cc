#include "data/resume_advice.h"

#include <algorithm>

#include "util/plural.h"
#include "util/shell_word.h"

namespace gt {
namespace {

std::string count(uint64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// "gpu-triage data DIR --expect N --manifest M --deep --move-bad-to DEST":
// the check that moves the files a rerun must redo, with every option that
// made a file bad or changed (a manifest, --values), so running it moves
// exactly what this run found.
std::string move_command(const DataReport& r, const ResumeContext& c) {
  std::string cmd = "gpu-triage data";
  for (const std::string& d : r.dirs) cmd += " " + shell_word(d);
  if (r.range)
    cmd += r.range->first == 0 ? " --expect " + std::to_string(r.range->second)
                               : " --range " + std::to_string(r.range->first) + ":" +
                                     std::to_string(r.range->second);
  for (const std::string& o : c.selection_options) cmd += " " + o;
  cmd += " --deep --move-bad-to " + (c.move_bad_to.empty() ? "DEST" : shell_word(c.move_bad_to));
  return cmd;
}

// The bad and changed files, each once (a file can be both).
size_t files_to_move(const DataReport& r) {
  std::vector<uint32_t> all = r.bad;
  all.insert(all.end(), r.changed.begin(), r.changed.end());
  std::sort(all.begin(), all.end());
  return size_t(std::unique(all.begin(), all.end()) - all.begin());
}

/// The move, as a sentence: done (--move-bad-to moved them), the command,
/// or why it is not given yet.
std::string move_sentence(const DataReport& r, const ResumeContext& c, const char* lead) {
  const size_t want = files_to_move(r);
  if (!r.moved.empty() && r.moved.size() == want)
    return "The " + count(want, "bad or changed file") + (want == 1 ? " was" : " were") +
           " moved out of DIR to " + c.move_bad_to + ".";
  if (!r.moved.empty())
    return std::to_string(r.moved.size()) + " of the " + count(want, "bad or changed file") +
           (r.moved.size() == 1 ? " was" : " were") + " moved out of DIR to " + c.move_bad_to +
           "; move the others (the errors below say why they were not) before rerunning.";
  if (!c.move_withheld.empty())
    return std::string(lead) +
           " move the bad and changed files out of DIR, but not yet: " + c.move_withheld +
           " (rerun gpu-triage then for the command).";
  return std::string(lead) +
         " move the bad and changed files out of DIR (same filesystem): " + move_command(r, c) +
         ".";
}

std::string list_name(const ResumeContext& c) {
  return c.resume_list.empty() ? "the list (--resume-list FILE)" : c.resume_list;
}

// The files among `files` that are samples of the job (in the range): the
// ones its rerun redoes once moved away; another bad file is only moved.
size_t samples_among(const DataReport& r, const std::vector<uint32_t>& files) {
  return std::count_if(files.begin(), files.end(),
                       [&](uint32_t i) { return r.key(i).has_value(); });
}

// What a rerun will redo: gaps, moved samples, the not-started range.
// Only what there is: "2 gaps, 1 bad file and the not-started 6-39".
std::string redo_summary(const DataReport& r) {
  std::vector<std::string> parts;
  if (r.gap_count) parts.push_back(count(r.gap_count, "gap"));
  if (const size_t bad = samples_among(r, r.bad)) parts.push_back(count(bad, "bad file"));
  if (const size_t changed = samples_among(r, r.changed))
    parts.push_back(count(changed, "changed file"));
  if (r.not_started)
    parts.push_back("the not-started " + std::to_string(r.not_started->first) + "-" +
                    std::to_string(r.not_started->last));
  if (parts.empty()) return "nothing";
  std::string s = parts.front();
  for (size_t i = 1; i < parts.size(); ++i)
    s += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return s;
}

// While a writer runs, the rerun waits: the files it writes are neither
// intact nor bad yet, so what a rerun would redo is not known.
std::string after_writer(const DataReport& r, const char* lead) {
  std::string s = std::string(lead) + " after the writer stops, run gpu-triage data again";
  if (!r.being_written.empty())
    s += " (" + count(r.being_written.size(), "file") + " still being written, not counted here)";
  return s + ": it says then what a rerun redoes.";
}

// One paragraph per cause, in sentences (a plan step numbers the steps).
void specforge(const DataReport& r, const ResumeContext& c, std::vector<std::string>& out) {
  out.push_back(
      "SpecForge (scripts/prepare_hidden_states.py) skips every index whose data_<idx>.ckpt or "
      ".ckpt.gz exists: it checks existence, not content.");
  const bool move = !r.bad.empty() || !r.changed.empty();
  if (move) out.push_back(move_sentence(r, c, "First"));
  if (c.writer_running) return out.push_back(after_writer(r, move ? "Then," : "Only"));
  out.push_back(std::string(move ? "Then rerun" : "Rerun") +
                " the same prepare_hidden_states.py command (same --output-path, dataset and "
                "--file-group-size): it redoes " +
                redo_summary(r) + ".");
}

void speculators(const DataReport& r, const ResumeContext& c, std::vector<std::string>& out) {
  out.push_back(
      "speculators (scripts/data_generation_offline.py) resumes after the highest existing "
      "index (find_last_checkpoint): gaps below it and damaged files are never revisited.");
  if (!r.bad.empty() || !r.changed.empty()) out.push_back(move_sentence(r, c, "First"));
  if (c.writer_running) return out.push_back(after_writer(r, "Then,"));
  out.push_back("Rerun the same command: it continues after the highest remaining index.");
  out.push_back("Regenerate the " + std::to_string(r.resume_count) + " samples in " + list_name(c) +
                " (gaps, bad, changed) separately: the script does not go back to them.");
}

void eagle(const DataReport& r, std::vector<std::string>& out) {
  out.push_back(
      "EAGLE's ge_data scripts have no resume: a restart re-processes the worker's whole "
      "--start/--end slice and names files data_<k> by counting the folder (k = "
      "len(os.listdir)), so a rerun into a folder that holds files appends shifted duplicates.");
  std::string workers;
  for (const KeyRun& k : r.resume)
    if (workers.find(" " + k.group + ",") == std::string::npos) workers += " " + k.group + ",";
  if (!workers.empty()) workers.pop_back();
  out.push_back("For each worker folder with bad or missing files (" + workers +
                " ), rerun that worker (same --index/--start/--end) into an empty folder, check "
                "it with gpu-triage data, then swap it in.");
}

void generic(const DataReport& r, const ResumeContext& c, std::vector<std::string>& out) {
  if (c.writer_running) return out.push_back(after_writer(r, "Only"));
  std::string s;
  if (r.resume_count)
    s = "Redo the " + std::to_string(r.resume_count) + " samples in " + list_name(c) +
        " (gaps, bad, changed)";
  if (r.not_started)
    s += std::string(s.empty() ? "Run" : ", then continue") + " from " +
         std::to_string(r.not_started->first) + " to " + std::to_string(r.not_started->last) +
         " (not started)";
  out.push_back(s + ".");
}

}  // namespace

bool layout_skips_samples(Layout l) { return l == Layout::kSpecForge; }

std::vector<std::string> resume_advice(const DataReport& r, const ResumeContext& c) {
  std::vector<std::string> out;
  if (!r.unreadable_dirs.empty()) {
    out.push_back(count_of(r.unreadable_dirs.size(), "folder", "folders") +
                  " under DIR could not be read (" + r.unreadable_dirs.front() +
                  (r.unreadable_dirs.size() > 1 ? ", ..." : "") +
                  "; the reason is under \"Could not read\"): the samples there are unknown, so "
                  "none is said missing or to redo. Check again as the job's user or as root "
                  "before resuming.");
    return out;
  }
  if (r.resume.empty() && !r.not_started) return out;
  switch (r.layout.kind) {
    case Layout::kSpecForge:
      specforge(r, c, out);
      break;
    case Layout::kSpeculators:
      speculators(r, c, out);
      break;
    case Layout::kEagle:
      eagle(r, out);
      break;
    default:
      generic(r, c, out);
  }
  if (layout_skips_samples(r.layout.kind) && r.gap_count > 0)
    out.push_back(
        "A gap may be expected: SpecForge does not save a sample whose hidden states hold NaN "
        "(it prints \"Warning: NaN found ... Skipping save\"); such an index stays missing after "
        "the rerun.");
  return out;
}

std::string stale_advice(bool writer_running) {
  if (writer_running)
    return "temp files never renamed; a process still writes under DIR, so they may yet be "
           "renamed: once it has stopped, those left are safe to remove";
  return "the writer died mid-write (temp file, never renamed); safe to remove once no process "
         "writes under DIR";
}

}  // namespace gt
