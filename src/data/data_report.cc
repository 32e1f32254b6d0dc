#include "data/data_report.h"

#include <cstdio>
#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>

#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;

std::string human_bytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (b >= 1000 && u < 5) {
    b /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

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

void list_paths(std::ostream& out, const char* title, const std::vector<std::string>& paths,
                size_t max_list) {
  if (paths.empty()) return;
  out << title << " (" << paths.size() << "):\n";
  for (size_t i = 0; i < paths.size(); ++i) {
    if (max_list && i == max_list) {
      out << "  ... and " << paths.size() - i << " more\n";
      break;
    }
    out << "  " << paths[i] << "\n";
  }
}

void render_progress(const DataReport& r, std::ostream& out) {
  const DataProgress& p = r.progress;
  out << "  progress: " << p.samples_done << " samples intact";
  if (p.last_write_unix_s) out << "; writing stopped " << format_utc(*p.last_write_unix_s);
  if (p.rate_samples_per_hour)
    out << "; " << static_cast<int64_t>(*p.rate_samples_per_hour + 0.5)
        << " samples/h over the last hour of writing";
  out << "\n";
  if (p.samples_remaining) {
    out << "  remaining: " << *p.samples_remaining << " samples";
    if (p.time_to_finish_s)
      out << ", about " << human_duration(*p.time_to_finish_s) << " at that rate";
    out << "\n";
  }
  if (p.bytes_needed && p.mean_sample_bytes) {
    out << "  space: " << human_bytes(double(*p.bytes_needed)) << " needed ("
        << human_bytes(*p.mean_sample_bytes) << " per sample)";
    if (p.free_bytes) out << ", " << human_bytes(double(*p.free_bytes)) << " free";
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

std::string format_key_runs(const std::vector<KeyRun>& runs, size_t max_items) {
  std::string out;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (max_items && i == max_items) {
      out += ", ... (" + std::to_string(run_keys({runs.begin() + i, runs.end()})) + " more)";
      break;
    }
    const KeyRun& r = runs[i];
    out += (out.empty() ? "" : ", ") + r.key(r.first).text();
    if (r.last > r.first) out += "-" + std::to_string(r.last);
  }
  return out;
}

void render_data_text(const DataReport& r, std::ostream& out, size_t max_list) {
  out << data_verdict(r.exit_code) << " data: " << r.files << " files, " << r.ok << " intact, "
      << r.bad.size() << " bad, ";
  if (!r.unverifiable.empty()) out << r.unverifiable.size() << " unverifiable, ";
  out << r.missing_count << " missing";
  if (!r.duplicates.empty()) out << ", " << r.duplicates.size() << " duplicated";
  out << ", " << r.stale.size() << " stale (" << layout_name(r.layout.kind) << " layout, "
      << (r.deep ? "deep" : "quick") << ", " << human_bytes(double(r.bytes)) << " in "
      << human_duration(r.elapsed_s) << ")\n";
  if (!r.resume.empty())
    out << "  resume: " << r.resume_count << " samples to redo: " << format_key_runs(r.resume, 20)
        << "\n";
  if (r.samples > 0) render_progress(r, out);
  if (!r.deep && r.bad.empty() && r.unverifiable.empty() && r.files > 0)
    out << "  quick mode checks structure only; --deep also checks every CRC32\n";
  if (!r.bad.empty()) {
    out << "Bad files (" << r.bad.size() << "):\n";
    for (size_t i = 0; i < r.bad.size(); ++i) {
      if (max_list && i == max_list) {
        out << "  ... and " << r.bad.size() - i << " more (--json lists all)\n";
        break;
      }
      const BadFile& b = r.bad[i];
      char code[16];
      std::snprintf(code, sizeof code, "%-13s", b.problem.c_str());
      out << "  " << code << " " << b.path << ": " << b.message << "\n";
    }
  }
  if (!r.unverifiable.empty()) {
    out << "Unverifiable, neither intact nor bad (" << r.unverifiable.size() << "):\n";
    for (size_t i = 0; i < r.unverifiable.size(); ++i) {
      if (max_list && i == max_list) {
        out << "  ... and " << r.unverifiable.size() - i << " more (--json lists all)\n";
        break;
      }
      out << "  " << r.unverifiable[i].path << ": " << r.unverifiable[i].reason << "\n";
    }
  }
  if (!r.missing.empty())
    out << "Missing (" << r.missing_count << "): " << format_key_runs(r.missing, 40) << "\n";
  for (const Duplicate& d : r.duplicates) {
    out << "Duplicate " << d.key.text() << ":";
    for (const std::string& p : d.paths) out << " " << p;
    out << "\n";
  }
  list_paths(out, "Stale temporary files", r.stale, max_list);
  if (r.manifest) {
    list_paths(out, "Changed since the manifest", r.manifest->changed, max_list);
    list_paths(out, "Missing from disk (in the manifest)", r.manifest->missing, max_list);
    list_paths(out, "New (not in the manifest)", r.manifest->added, max_list);
  }
  for (const auto& [from, to] : r.moved) out << "moved " << from << " -> " << to << "\n";
  list_paths(out, "Could not read", r.errors, max_list);
}

namespace {

// Large arrays are written one element per line, so memory stays one
// element's worth however many files are bad (1M bad files cost no JSON tree).
void write_array(std::ostream& out, const char* key, size_t n,
                 const std::function<J(size_t)>& element, bool last = false) {
  out << "  \"" << key << "\": [";
  for (size_t i = 0; i < n; ++i)
    out << (i ? ",\n    " : "\n    ")
        << element(i).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
      out << key_json(k).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

void write_field(std::ostream& out, const char* key, const J& value) {
  out << "  \"" << key
      << "\": " << value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\n";
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
                {"bad", r.bad.size()},
                {"unverifiable", r.unverifiable.size()},
                {"missing", r.missing_count},
                {"duplicates", r.duplicates.size()},
                {"stale", r.stale.size()},
                {"samples", r.samples},
                {"outside_range", r.outside_range},
                {"resume", r.resume_count},
                {"bytes", r.bytes},
                {"bytes_read", r.bytes_read},
                {"elapsed_s", r.elapsed_s}});
  write_array(out, "bad", r.bad.size(), [&](size_t i) {
    const BadFile& b = r.bad[i];
    J problems = J::array();
    for (const Problem& p : b.problems)
      problems.push_back({{"problem", problem_code_name(p.code)}, {"message", p.message}});
    return J{{"path", b.path},
             {"index", b.key ? key_json(*b.key) : J(nullptr)},
             {"problem", b.problem},
             {"message", b.message},
             {"problems", problems}};
  });
  write_array(out, "unverifiable", r.unverifiable.size(), [&](size_t i) {
    const UnverifiedFile& u = r.unverifiable[i];
    return J{
        {"path", u.path}, {"index", u.key ? key_json(*u.key) : J(nullptr)}, {"reason", u.reason}};
  });
  write_keys(out, "missing", r.missing);
  write_runs(out, "missing_runs", r.missing);
  write_array(out, "duplicates", r.duplicates.size(), [&](size_t i) {
    return J{{"index", key_json(r.duplicates[i].key)}, {"paths", r.duplicates[i].paths}};
  });
  write_array(out, "stale", r.stale.size(), [&](size_t i) { return J(r.stale[i]); });
  write_keys(out, "resume", r.resume);
  write_runs(out, "resume_runs", r.resume);
  const DataProgress& p = r.progress;
  write_field(
      out, "progress",
      J{{"samples_done", p.samples_done},
        {"last_write", p.last_write_unix_s ? J(format_utc(*p.last_write_unix_s)) : J(nullptr)},
        {"rate_samples_per_hour", opt(p.rate_samples_per_hour)},
        {"samples_remaining", opt(p.samples_remaining)},
        {"time_to_finish_s", opt(p.time_to_finish_s)},
        {"mean_sample_bytes", opt(p.mean_sample_bytes)},
        {"bytes_needed", opt(p.bytes_needed)},
        {"free_bytes", opt(p.free_bytes)},
        {"capacity_short", p.capacity_short}});
  write_field(out, "manifest",
              r.manifest ? J{{"changed", r.manifest->changed},
                             {"missing", r.manifest->missing},
                             {"new", r.manifest->added}}
                         : J(nullptr));
  write_array(out, "moved", r.moved.size(), [&](size_t i) {
    return J{{"from", r.moved[i].first}, {"to", r.moved[i].second}};
  });
  write_array(
      out, "errors", r.errors.size(), [&](size_t i) { return J(r.errors[i]); }, true);
  out << "}\n";
}

void render_data_nul(const DataReport& r, std::ostream& out) {
  for (const BadFile& b : r.bad) out << b.path << '\0';
}

}  // namespace gt
