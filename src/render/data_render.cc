#include "render/data_render.h"

#include <cstdio>
#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>

#include "report/json_util.h"
#include "util/byte_units.h"
#include "util/json_text.h"
#include "util/plural.h"
#include "util/terminal_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;

std::string human_duration(double s) {
  char buf[32];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 7200)
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  else if (s < 172800)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

J key_json(const SampleKey& k) { return k.group.empty() ? J(k.index) : J(k.text()); }

template <typename T>
J opt(const std::optional<T>& v) {
  return v ? J(*v) : J(nullptr);
}

J file_json(const ValueFile& f) {
  const ValueSummary& v = f.values;
  return J{{"path", f.path},
           {"nan", v.nan},
           {"pos_inf", v.pos_inf},
           {"neg_inf", v.neg_inf},
           {"tensors", v.tensors},
           {"zero_tensors", v.zero_tensors},
           {"zero_tensor_names", v.zero_tensor_names},
           {"all_zero", v.all_zero()},
           {"uncounted_dtypes", v.uncounted_dtypes}};
}

// The report's "values" object.
J values_json(const ValueTotals& t) {
  J files = J::array();
  for (const ValueFile& f : t.files) files.push_back(file_json(f));
  return J{{"allow_non_finite", t.allow_non_finite},
           {"files_counted", t.files_counted},
           {"files_not_counted", t.files_not_counted},
           {"tensors", t.tensors},
           {"elements", t.elements},
           {"nan", t.nan},
           {"pos_inf", t.pos_inf},
           {"neg_inf", t.neg_inf},
           {"zero_tensors", t.zero_tensors},
           {"uncounted_tensors", t.uncounted_tensors},
           {"files_non_finite", t.files_non_finite},
           {"files_all_zero", t.files_all_zero},
           {"files", files}};
}

// Text lines for the human report (at most `max_list` files named; 0: all).
void render_values_text(const ValueTotals& t, std::ostream& out, size_t max_list) {
  out << "  values: " << t.elements << " float values in " << t.tensors << " tensors of "
      << t.files_counted << " files: " << t.nan << " NaN, " << t.pos_inf << " +Inf, " << t.neg_inf
      << " -Inf in " << t.files_non_finite << " files"
      << (t.allow_non_finite && t.files_non_finite ? " (allowed)" : "") << "; " << t.zero_tensors
      << " all-zero tensors";
  if (t.files_not_counted) out << "; " << t.files_not_counted << " files not decoded";
  if (t.uncounted_tensors) out << "; " << t.uncounted_tensors << " tensors of other dtypes";
  out << "\n";
  size_t shown = 0;
  for (const ValueFile& f : t.files) {
    // Not allowed, non-finite files are listed as bad; zero tensors: JSON only.
    bool nf = t.allow_non_finite && f.values.non_finite() > 0;
    if (!nf && !f.values.all_zero()) continue;
    if (max_list && shown++ == max_list) {
      out << "  ... more in --json\n";
      break;
    }
    const ValueSummary& v = f.values;
    if (nf)
      out << "  non-finite (allowed) " << for_terminal(f.path) << ": " << v.nan << " NaN, "
          << v.pos_inf << " +Inf, " << v.neg_inf << " -Inf\n";
    if (v.all_zero())
      out << "  note: every float value of " << for_terminal(f.path) << " is zero (" << v.tensors
          << " tensors)\n";
  }
}

void list_paths(std::ostream& out, const char* title, const std::vector<std::string>& paths,
                size_t max_list) {
  if (paths.empty()) return;
  out << title << " (" << paths.size() << "):\n";
  for (size_t i = 0; i < paths.size(); ++i) {
    if (max_list && i == max_list) {
      out << "  ... and " << paths.size() - i << " more\n";
      break;
    }
    out << "  " << for_terminal(paths[i]) << "\n";
  }
}

void render_progress(const DataReport& r, std::ostream& out) {
  const DataProgress& p = r.progress;
  out << "  progress: " << p.samples_done << " samples intact";
  // While a process writes under DIR, writing has not stopped.
  const bool writing = !r.writers.empty() || !r.being_written.empty();
  const bool unknown = !writing && !r.writers_unknown.empty();
  if (p.last_write_unix_s)
    out << (writing || unknown ? "; newest intact sample " : "; writing stopped ")
        << format_utc(*p.last_write_unix_s)
        << (writing   ? " (a process still writes under DIR)"
            : unknown ? " (whether writing stopped is unknown: other users' open files could "
                        "not be checked)"
                      : "");
  if (p.future_mtime_unix_s)
    out << "; newest sample dated " << format_utc(*p.future_mtime_unix_s)
        << ", in the future: the file's time or this machine's clock is off, so when writing "
           "stopped is unknown";
  if (p.rate_samples_per_hour && p.rate_source == "mtimes")
    out << "; " << static_cast<int64_t>(*p.rate_samples_per_hour + 0.5)
        << " samples/h over the last hour of writing";
  if (p.rate_samples_per_hour && p.rate_source == "--rate")
    out << "; " << static_cast<int64_t>(*p.rate_samples_per_hour + 0.5) << " samples/h (--rate)";
  out << "\n";
  if (p.mtimes_clustered)
    out << "  rate: unknown from mtimes: 90% of them lie within "
        << human_duration(p.clustered_span_s.value_or(0))
        << ", too fast or in an order unrelated to the index (a copy or restore set them)"
        << (p.rate_source == "--rate" ? "" : "; give it with --rate N/s") << "\n";
  if (p.samples_remaining) {
    out << "  remaining: " << *p.samples_remaining << " samples";
    if (p.time_to_finish_s)
      out << ", about " << human_duration(*p.time_to_finish_s) << " at that rate";
    out << "\n";
  }
  if (p.bytes_needed && p.mean_sample_bytes) {
    out << "  space: " << format_bytes(double(*p.bytes_needed)) << " needed ("
        << format_bytes(*p.mean_sample_bytes) << " per sample)";
    if (p.free_bytes) out << ", " << format_bytes(double(*p.free_bytes)) << " free";
    out << (p.capacity_short ? ": WARNING the remaining samples do not fit" : "") << "\n";
  }
}

}  // namespace

const char* data_verdict(ExitCode code) {
  switch (code) {
    case ExitCode::kOk:
      return "OK";
    case ExitCode::kWarning:
      return "WARNING";
    case ExitCode::kCritical:
      return "CRITICAL";
    default:
      return "UNKNOWN";
  }
}

namespace {

void render_summary(const DataReport& r, std::ostream& out) {
  out << data_verdict(r.exit_code) << " data: " << r.files << " files";
  // A progress.json or a vocab file is a file, never a sample (stale
  // temporary files are counted apart below).
  // "intact" counts samples only; intact other files are said apart.
  const uint64_t other = r.files - r.samples - r.stale.size();
  if (other > 0) out << " (" << r.samples << " samples, " << other << " other)";
  if (r.samples > 0 || r.ok_other == 0)
    out << ", " << r.ok << (other > 0 ? " samples" : "") << " intact";
  if (r.ok_other > 0) out << ", " << count_of(r.ok_other, "other file", "other files") << " intact";
  out << ", " << r.bad.size() << " bad";
  if (!r.moved.empty()) out << " (" << r.moved.size() << " moved out of DIR)";
  out << ", ";
  if (!r.unverifiable.empty()) out << r.unverifiable.size() << " unverifiable, ";
  if (!r.being_written.empty()) out << r.being_written.size() << " being written, ";
  if (!r.unreadable_dirs.empty())
    out << "missing unknown (" << count_of(r.unreadable_dirs.size(), "folder", "folders")
        << " unreadable)";
  else
    out << r.missing_count << " missing";
  if (r.not_started && r.missing_count)
    out << " (" << count_of(r.gap_count, "gap", "gaps") << " below the highest index, "
        << r.not_started->count() << " not started)";
  if (!r.duplicates.empty()) out << ", " << r.duplicates.size() << " duplicated";
  out << ", " << r.stale.size() << " stale (" << layout_name(r.layout.kind) << " layout, "
      << (r.deep ? "deep" : "quick") << ", " << format_bytes(double(r.bytes)) << " in "
      << human_duration(r.elapsed_s) << ")\n";
}

const char* anchor_phrase(AnchorKind k) {
  switch (k) {
    case AnchorKind::kNewestSample:
      return "newest sample";
    case AnchorKind::kNewestFile:
      return "newest file";
    case AnchorKind::kWritingPaused:
      return "last sample before a pause";
    case AnchorKind::kCrash:
      return "crash";
  }
  return "?";
}

// What quick mode read: every file's structure, and the CRCs of the recent.
void render_checked(const DataReport& r, std::ostream& out) {
  const std::optional<RecentCheck>& rc = r.scan ? r.scan->recent : std::nullopt;
  if (r.deep || r.files == 0) return;
  out << "  checked: structure of every file";
  if (rc && !rc->anchors.empty()) {
    out << "; every CRC32 of the " << rc->files << " files written within "
        << human_duration(double(rc->window_s)) << " before";
    for (size_t i = 0; i < rc->anchors.size(); ++i)
      out << (i == 0                        ? " the "
              : i + 1 == rc->anchors.size() ? " and the "
                                            : ", the ")
          << anchor_phrase(rc->anchors[i].kind) << " (" << format_utc(rc->anchors[i].unix_s) << ")";
    // Files the window's guess read whole before the window was known.
    if (r.crc_checked > rc->files)
      out << "; and of " << r.crc_checked - rc->files << " more files, read whole on the way";
  }
  out << "\n";
  // Only files judged intact (or unverifiable) by their structure alone:
  // a file already found bad needs no CRC to be judged.
  uint64_t older = 0;
  if (r.scan)
    for (const ScannedFile& f : r.scan->files) {
      const std::string_view base = std::string_view(f.rel).substr(f.rel.rfind('/') + 1);
      if (is_marker_or_lock(base, f.size_bytes) || is_stale_temp(base)) continue;
      older += !f.crc_checked && f.verdict != FileVerdict::kBad &&
               f.verdict != FileVerdict::kUnreadable && f.verdict != FileVerdict::kBeingWritten;
    }
  if (older)
    out << "  not checked: CRC32 of the other " << older
        << " files (a flipped bit or zeroed block inside tensor data goes unseen, and torch.load "
           "checks no CRC); --deep checks every byte\n";
}

void render_warnings(const DataReport& r, std::ostream& out, size_t max_list) {
  for (const std::string& w : r.writers)
    out << "  WARNING still written: " << for_terminal(w) << "\n";
  if (!r.writers.empty())
    out << "  a process is writing under DIR: stop it before moving files or resuming\n";
  if (!r.writers_unknown.empty())
    out << "  WARNING not checked: " << for_terminal(r.writers_unknown) << "\n";
  if (!r.changed_during_scan.empty()) {
    out << "  WARNING " << r.changed_during_scan.size()
        << " files changed while being checked (size or mtime): is the job still running?\n";
    for (size_t i = 0; i < r.changed_during_scan.size() && i < std::max<size_t>(max_list, 1); ++i)
      out << "    " << for_terminal(r.path(r.changed_during_scan[i])) << "\n";
  }
}

void render_resume(const DataReport& r, std::ostream& out) {
  if (!r.resume.empty())
    out << "  resume: " << count_of(r.resume_count, "sample", "samples")
        << " to redo: " << for_terminal(format_key_runs(r.resume, 20)) << "\n";
  if (r.not_started)
    out << "  not started: " << r.not_started->first << "-" << r.not_started->last << " ("
        << count_of(r.not_started->count(), "sample", "samples") << " above the highest index)\n";
}

// A titled list of scan files, cut at max_list, one `line(file)` each.
void list_files(std::ostream& out, const std::string& title, const std::vector<uint32_t>& files,
                size_t max_list, const std::function<std::string(uint32_t)>& line) {
  if (files.empty()) return;
  out << title << " (" << files.size() << "):\n";
  for (size_t i = 0; i < files.size(); ++i) {
    if (max_list && i == max_list) {
      out << "  ... and " << files.size() - i << " more (--json lists all)\n";
      break;
    }
    out << "  " << for_terminal(line(files[i])) << "\n";
  }
}

void render_bad(const DataReport& r, std::ostream& out, size_t max_list) {
  list_files(out, "Bad files", r.bad, max_list, [&](uint32_t b) {
    char code[16];
    std::snprintf(code, sizeof code, "%-13s", r.problem(b).c_str());
    return std::string(code) + " " + r.path(b) + ": " + r.message(b);
  });
}

void render_unverifiable(const DataReport& r, std::ostream& out, size_t max_list) {
  list_files(out, "Unverifiable, neither intact nor bad", r.unverifiable, max_list,
             [&](uint32_t u) { return r.path(u) + ": " + r.message(u); });
}

void render_being_written(const DataReport& r, std::ostream& out, size_t max_list) {
  list_files(out, "Being written, neither intact nor bad, not in the resume set", r.being_written,
             max_list, [&](uint32_t w) { return r.path(w) + ": " + r.message(w) + " writes it"; });
}

void render_missing(const DataReport& r, std::ostream& out) {
  if (!r.gaps.empty())
    out << "Gaps below the highest index (" << r.gap_count
        << "): " << for_terminal(format_key_runs(r.gaps, 40)) << "\n";
  if (r.not_started)
    out << "Not started (" << r.not_started->count() << "): " << r.not_started->first << "-"
        << r.not_started->last << "\n";
}

void render_manifest(const DataReport& r, std::ostream& out, size_t max_list) {
  if (!r.manifest) return;
  for (const std::string& n : r.manifest->notes) out << "manifest: " << for_terminal(n) << "\n";
  list_paths(out, "Changed since the manifest (in the resume set)", r.manifest->changed, max_list);
  list_paths(out, "Missing from disk (in the manifest)", r.manifest->missing, max_list);
  list_paths(out, "New (not in the manifest)", r.manifest->added, max_list);
}

}  // namespace

void render_data_text(const DataReport& r, std::ostream& out, size_t max_list) {
  render_summary(r, out);
  render_checked(r, out);
  render_warnings(r, out, max_list);
  render_resume(r, out);
  if (r.samples > 0 || r.range) render_progress(r, out);
  if (r.values) render_values_text(*r.values, out, max_list);
  render_bad(r, out, max_list);
  render_unverifiable(r, out, max_list);
  render_being_written(r, out, max_list);
  render_missing(r, out);
  for (const Duplicate& d : r.duplicates) {
    out << "Duplicate " << for_terminal(d.key.text()) << ":";
    for (const std::string& p : d.paths) out << " " << for_terminal(p);
    out << "\n";
  }
  list_paths(out, "Stale temporary files", r.stale, max_list);
  if (!r.stale.empty()) out << "  (" << for_terminal(r.stale_advice) << ")\n";
  render_manifest(r, out, max_list);
  if (!r.how_to_resume.empty()) {
    out << "How to resume:\n";
    for (const std::string& line : r.how_to_resume) out << "  " << for_terminal(line) << "\n";
  }
  for (const auto& [from, to] : r.moved)
    out << "moved " << for_terminal(from) << " -> " << for_terminal(to) << "\n";
  if (!r.move_refused.empty()) out << "--move-bad-to: " << for_terminal(r.move_refused) << "\n";
  list_paths(out, "Could not read", r.errors, max_list);
}

namespace {

// Large arrays are written one element per line, so memory stays one
// element's worth however many files are bad (1M bad files cost no JSON tree).
void write_array(std::ostream& out, const char* key, size_t n,
                 const std::function<J(size_t)>& element, bool last = false) {
  out << "  \"" << key << "\": [";
  for (size_t i = 0; i < n; ++i) out << (i ? ",\n    " : "\n    ") << json_text(element(i));
  out << (n ? "\n  ]" : "]") << (last ? "\n" : ",\n");
}

// Each key of the runs, at most kMaxListedIndices (the summary has the count).
void write_keys(std::ostream& out, const char* key, const std::vector<KeyRun>& runs) {
  out << "  \"" << key << "\": [";
  bool first = true;
  for_each_key(runs, kMaxListedIndices, [&](const SampleKey& k) {
    out << (first ? "\n    " : ",\n    ");
    if (k.group.empty())
      out << k.index;
    else
      out << json_text(key_json(k));
    first = false;
  });
  out << (first ? "]" : "\n  ]") << ",\n";
}

void write_runs(std::ostream& out, const char* key, const std::vector<KeyRun>& runs) {
  write_array(out, key, runs.size(), [&](size_t i) {
    return J{{"first", key_json(runs[i].key(runs[i].first))},
             {"last", key_json(runs[i].key(runs[i].last))}};
  });
}

// The times the windows end at, newest first.
J anchors_json(const RecentCheck& rc) {
  J out = J::array();
  for (const RecentAnchor& a : rc.anchors)
    out.push_back({{"kind", anchor_kind_name(a.kind)}, {"time", json_util::iso_time(a.unix_s)}});
  return out;
}

// What was read: quick mode's recent window, or everything (deep).
J checked_json(const DataReport& r) {
  const std::optional<RecentCheck>& rc = r.scan ? r.scan->recent : std::nullopt;
  return J{{"crc_checked", r.crc_checked},
           {"not_crc_checked", r.files - r.crc_checked},
           {"recent_window_s", rc ? J(rc->window_s) : J(nullptr)},
           {"newest_mtime", rc ? json_util::iso_time(rc->newest_unix_s) : J(nullptr)},
           {"recent_files", rc ? J(rc->files) : J(nullptr)},
           {"recent_anchors", rc ? anchors_json(*rc) : J(nullptr)}};
}

void write_field(std::ostream& out, const char* key, const J& value) {
  out << "  \"" << key << "\": " << json_text(value) << ",\n";
}

}  // namespace

void render_data_json(const DataReport& r, std::ostream& out) {
  out << "{\n";
  write_field(out, "verdict", data_verdict(r.exit_code));
  write_field(out, "exit_code", static_cast<int>(r.exit_code));
  write_field(out, "mode", r.deep ? "deep" : "quick");
  write_field(out, "layout", layout_name(r.layout.kind));
  write_field(out, "dirs", r.dirs);
  write_field(out, "range",
              r.range ? J{{"first", r.range->first}, {"end", r.range->second}} : J(nullptr));
  write_field(out, "summary",
              J{{"files", r.files},
                {"ok", r.ok},
                {"ok_other", r.ok_other},
                {"bad", r.bad.size()},
                {"unverifiable", r.unverifiable.size()},
                {"being_written", r.being_written.size()},
                {"missing", r.unreadable_dirs.empty() ? J(r.missing_count) : J(nullptr)},
                {"duplicates", r.duplicates.size()},
                {"stale", r.stale.size()},
                {"markers", r.markers},
                {"samples", r.samples},
                {"outside_range", r.outside_range},
                {"gaps", r.gap_count},
                {"not_started", r.not_started ? r.not_started->count() : 0},
                {"changed", r.changed.size()},
                {"changed_during_scan", r.changed_during_scan.size()},
                {"crc_checked", r.crc_checked},
                {"resume", r.resume_count},
                {"bytes", r.bytes},
                {"bytes_read", r.bytes_read},
                {"elapsed_s", r.elapsed_s}});
  write_array(out, "bad", r.bad.size(), [&](size_t i) {
    uint32_t b = r.bad[i];
    std::optional<SampleKey> key = r.key(b);
    J problems = J::array();
    for (const Problem& p : r.scan->problems(r.file(b)))
      problems.push_back({{"problem", problem_code_name(p.code)}, {"message", p.message}});
    return J{{"path", r.path(b)},
             {"index", key ? key_json(*key) : J(nullptr)},
             {"problem", r.problem(b)},
             {"message", r.message(b)},
             {"problems", problems}};
  });
  write_array(out, "unverifiable", r.unverifiable.size(), [&](size_t i) {
    uint32_t u = r.unverifiable[i];
    std::optional<SampleKey> key = r.key(u);
    return J{{"path", r.path(u)},
             {"index", key ? key_json(*key) : J(nullptr)},
             {"reason", r.message(u)}};
  });
  write_array(out, "being_written", r.being_written.size(), [&](size_t i) {
    uint32_t w = r.being_written[i];
    std::optional<SampleKey> key = r.key(w);
    return J{{"path", r.path(w)},
             {"index", key ? key_json(*key) : J(nullptr)},
             {"writer", r.message(w)}};
  });
  write_keys(out, "missing", r.missing);
  write_runs(out, "missing_runs", r.missing);
  write_runs(out, "gap_runs", r.gaps);
  write_field(out, "not_started",
              r.not_started ? J{{"first", r.not_started->first},
                                {"last", r.not_started->last},
                                {"count", r.not_started->count()}}
                            : J(nullptr));
  write_field(out, "checked", checked_json(r));
  write_array(out, "duplicates", r.duplicates.size(), [&](size_t i) {
    return J{{"index", key_json(r.duplicates[i].key)}, {"paths", r.duplicates[i].paths}};
  });
  write_array(out, "stale", r.stale.size(), [&](size_t i) { return J(r.stale[i]); });
  write_keys(out, "resume", r.resume);
  write_runs(out, "resume_runs", r.resume);
  const DataProgress& p = r.progress;
  write_field(out, "progress",
              J{{"samples_done", p.samples_done},
                {"last_write", json_util::iso_time(p.last_write_unix_s)},
                {"future_mtime", json_util::iso_time(p.future_mtime_unix_s)},
                {"rate_samples_per_hour", opt(p.rate_samples_per_hour)},
                {"rate_source", p.rate_source.empty() ? J(nullptr) : J(p.rate_source)},
                {"mtimes_clustered", p.mtimes_clustered},
                {"clustered_span_s", opt(p.clustered_span_s)},
                {"samples_remaining", opt(p.samples_remaining)},
                {"time_to_finish_s", opt(p.time_to_finish_s)},
                {"mean_sample_bytes", opt(p.mean_sample_bytes)},
                {"bytes_needed", opt(p.bytes_needed)},
                {"free_bytes", opt(p.free_bytes)},
                {"capacity_short", p.capacity_short}});
  write_field(out, "values", r.values ? values_json(*r.values) : J(nullptr));
  write_field(out, "manifest",
              r.manifest ? J{{"changed", r.manifest->changed},
                             {"missing", r.manifest->missing},
                             {"new", r.manifest->added},
                             {"notes", r.manifest->notes}}
                         : J(nullptr));
  write_field(out, "how_to_resume", r.how_to_resume);
  write_field(out, "stale_advice", r.stale.empty() ? J(nullptr) : J(r.stale_advice));
  write_field(out, "writers", r.writers);
  write_field(out, "writers_unknown",
              r.writers_unknown.empty() ? J(nullptr) : J(r.writers_unknown));
  write_array(out, "changed_during_scan", r.changed_during_scan.size(),
              [&](size_t i) { return J(r.path(r.changed_during_scan[i])); });
  write_field(out, "move_refused", r.move_refused.empty() ? J(nullptr) : J(r.move_refused));
  write_array(out, "moved", r.moved.size(), [&](size_t i) {
    return J{{"from", r.moved[i].first}, {"to", r.moved[i].second}};
  });
  write_field(out, "unreadable_dirs", r.unreadable_dirs);
  write_array(
      out, "errors", r.errors.size(), [&](size_t i) { return J(r.errors[i]); }, true);
  out << "}\n";
}

void render_data_nul(const DataReport& r, std::ostream& out) {
  for (uint32_t b : r.bad) out << r.path(b) << '\0';
}

}  // namespace gt
