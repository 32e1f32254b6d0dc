// gpu-triage data: the command line, then a script of phases: scan (verify
// every file in parallel), choose the layout, analyse, compare or write the
// manifest, move bad files, write the resume list, render.
#include "cli/cmd_data.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/usage.h"
#include "data/analysis.h"
#include "data/layouts.h"
#include "data/manifest.h"
#include "data/manifest_check.h"
#include "data/resume.h"
#include "data/resume_advice.h"
#include "data/scan.h"
#include "data/writers.h"
#include "render/data_render.h"
#include "util/duration.h"
#include "util/env.h"
#include "util/fs_space.h"
#include "util/shell_word.h"

namespace gt {
namespace {

struct DataCli {
  std::vector<std::string> dirs;
  std::optional<int64_t> expect;
  std::optional<std::pair<int64_t, int64_t>> range;
  bool deep = false, json = false, nul = false;
  bool values = false, allow_non_finite = false;
  Layout layout = Layout::kAuto;
  std::string manifest, write_manifest, resume_list, move_bad_to;
  std::optional<HashAlgo> algo;
  unsigned threads = 0;
  int64_t recent_s = 15 * 60;
  std::optional<double> rate_per_s;
};

/// A --manifest that names no file is a mistyped command line, not a
/// corpus that failed its check: why, or nullopt when it names a file (one
/// that cannot be read is said after the scan, as before).
std::optional<std::string> missing_manifest(const std::string& path) {
  if (path.empty()) return std::nullopt;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT && err != ENOTDIR) return std::nullopt;
    return "--manifest " + path + ": " + std::strerror(err) +
           " (write one with --write-manifest FILE)";
  }
  if (S_ISDIR(st.st_mode)) return "--manifest " + path + " is a directory, not a manifest file";
  if (!S_ISREG(st.st_mode)) return "--manifest " + path + " is not a regular file";
  return std::nullopt;
}

int usage(bool json, const std::string& msg) {
  return command_error("gpu-triage data", msg, static_cast<int>(ExitCode::kUsage), json);
}

std::optional<std::pair<int64_t, int64_t>> parse_range(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  try {
    size_t a_end = 0, b_end = 0;
    int64_t a = std::stoll(text.substr(0, colon), &a_end);
    int64_t b = std::stoll(text.substr(colon + 1), &b_end);
    if (a_end != colon || b_end != text.size() - colon - 1 || a < 0 || b <= a) return std::nullopt;
    return std::make_pair(a, b);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// "1.09/s", "65/min", "3924/h" or a bare number (per second); nullopt if
/// not a positive rate.
std::optional<double> parse_rate(const std::string& text) {
  size_t slash = text.find('/');
  std::string unit = slash == std::string::npos ? "s" : text.substr(slash + 1);
  double per = unit == "s" ? 1 : unit == "min" ? 60 : unit == "h" ? 3600 : 0;
  try {
    size_t end = 0;
    double n = std::stod(text.substr(0, slash), &end);
    if (per == 0 || end != text.substr(0, slash).size() || !(n > 0) || n > 1e9) return std::nullopt;
    return n / per;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Parses argv; nullopt with `code` set when the command ends now.
std::optional<DataCli> parse_data_args(int argc, char** argv, int& code) {
  CLI::App app{
      "gpu-triage data: is the job's output intact, and exactly which samples must be redone?\n"
      "Files are opened read-only; nothing in DIR changes unless --move-bad-to is given."};
  app.name("gpu-triage data");
  app.allow_extras();  // parse_command_line names an unknown option, with a suggestion
  app.footer(
      "Exit codes: 0 every file intact, nothing missing; 1 resumable problems (bad, missing,\n"
      "  duplicated, stale or unverifiable files, not enough space for the rest, manifest\n"
      "  differences); 2 a DIR, subdirectory or file (or the --manifest) that could not be\n"
      "  read, or a --write-manifest or --resume-list that could not be written; 3 nothing\n"
      "  to check; 64 bad usage.");
  DataCli c;
  std::string range, layout = "auto", algo, recent, rate;
  int64_t expect = -1;
  app.add_option("DIR", c.dirs, "Output directories of the job")->required();
  auto* e =
      app.add_option("--expect", expect,
                     "Samples 0..N-1 should exist (N at most " + std::to_string(kMaxSamples) + ")")
          ->check(whole_number(0, INT64_MAX));
  app.add_option("--range", range,
                 "Samples A..B-1 should exist (A:B, B exclusive, B-A at most " +
                     std::to_string(kMaxSamples) + ")")
      ->excludes(e);
  app.add_flag("--deep", c.deep,
               "Read everything: every zip record's and gzip stream's CRC32, npz members, "
               "all-zero blocks in tensor data");
  app.add_flag("--values", c.values,
               "Also decode float32/float16/bfloat16 tensors (torch zip, safetensors, npy, npz): "
               "NaN/Inf is problem non-finite; all-zero tensors are noted (implies --deep)");
  auto* values_flag = app.get_option("--values");
  app.add_flag("--allow-non-finite", c.allow_non_finite,
               "With --values: count NaN/Inf but do not call those files bad")
      ->needs(values_flag);
  app.add_option("--recent", recent,
                 "Quick mode also checks every CRC32 of the files written within this long "
                 "before the newest sample and the last pauses of writing (default 15m; 0 turns "
                 "it off)");
  app.add_option("--rate", rate,
                 "Samples per second for the finish-time estimate (1.09/s, 65/min, 3924/h), "
                 "when mtimes cannot tell (a copy or restore)");
  app.add_option("--layout", layout, "auto (default), specforge, eagle, speculators, flat");
  app.add_option("--manifest", c.manifest, "Verify against this checksum manifest");
  app.add_option("--write-manifest", c.write_manifest,
                 "Write a manifest (sha256sum line format) of every file");
  app.add_option("--algo", algo, "Manifest hash: xxh128 (default), sha256, crc32");
  app.add_option(
      "--resume-list", c.resume_list,
      "Write the samples to redo (gaps, bad, changed; not the not-started range), one per "
      "line, atomically");
  app.add_option("--move-bad-to", c.move_bad_to,
                 "Move bad and changed files here (same filesystem, outside DIR; checked before "
                 "scanning) so a rerun regenerates them; never deletes");
  auto* j = app.add_flag("--json", c.json, "JSON output (docs/json.md)");
  app.add_flag("-0", c.nul, "Print only the bad files' paths, NUL-separated")->excludes(j);
  app.add_option("--threads", c.threads, "Parallel readers (default: cores, at most 16)")
      ->check(whole_number(0, UINT32_MAX));
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {"gpu-triage data", {}})) {
    code = *rc;
    return std::nullopt;
  }
  code = static_cast<int>(ExitCode::kUsage);
  if (expect >= 0) c.range = std::make_pair(int64_t{0}, expect);
  if (app.count("--expect") && expect < 0)
    return usage(c.json, "--expect must be 0 or more"), std::nullopt;
  if (!range.empty() && !(c.range = parse_range(range)))
    return usage(c.json, "--range wants A:B with 0 <= A < B, got '" + range + "'"), std::nullopt;
  if (c.range && uint64_t(c.range->second - c.range->first) > kMaxSamples)
    return usage(c.json,
                 (range.empty() ? "--expect " + std::to_string(expect) : "--range " + range) +
                     " names " + std::to_string(c.range->second - c.range->first) +
                     " samples, over the limit of " + std::to_string(kMaxSamples)),
           std::nullopt;
  std::optional<Layout> l = parse_layout(layout);
  if (!l) return usage(c.json, "unknown --layout '" + layout + "'"), std::nullopt;
  c.layout = *l;
  if (!algo.empty() && !(c.algo = parse_hash_algo(algo)))
    return usage(c.json, "unknown --algo '" + algo + "' (xxh128, sha256, crc32)"), std::nullopt;
  if (!recent.empty()) {
    Result<std::chrono::milliseconds> d = parse_duration(recent);
    if (!d) return usage(c.json, "--recent: " + d.error().message), std::nullopt;
    c.recent_s = std::chrono::duration_cast<std::chrono::seconds>(*d).count();
  }
  if (!rate.empty() && !(c.rate_per_s = parse_rate(rate)))
    return usage(c.json,
                 "--rate wants samples per second (1.09/s, 65/min, 3924/h), got '" + rate + "'"),
           std::nullopt;
  if (std::optional<std::string> bad = missing_manifest(c.manifest))
    return usage(c.json, *bad), std::nullopt;
  if (!c.move_bad_to.empty())
    if (Status s = check_move_target(c.move_bad_to, c.dirs); !s)
      return usage(c.json, s.error().message), std::nullopt;
  code = 0;
  return c;
}

// A progress line on stderr while the scan runs, when stderr is a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(const ScanProgress& p) : p_(p) {
    if (isatty(STDERR_FILENO)) thread_ = std::thread([this] { loop(); });
  }
  ~ProgressLine() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop() {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mu_);
    bool shown = false;
    while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (s < 1.0) continue;  // short runs print nothing
      uint64_t files = p_.files_done, total = p_.files_total, bytes = p_.bytes_done;
      double left = files > 0 ? s * double(total - std::min(files, total)) / double(files) : 0;
      std::fprintf(stderr, "\r%llu/%llu files, %.1f GB, %.0f MB/s, %.0f s left   ",
                   (unsigned long long)files, (unsigned long long)total, bytes / 1e9,
                   bytes / s / 1e6, left);
      shown = true;
    }
    if (shown) std::fprintf(stderr, "\r\033[K");
  }
  const ScanProgress& p_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

Result<Manifest> load_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::kNotFound, "cannot read manifest " + path};
  std::stringstream ss;
  ss << in.rdbuf();
  Result<Manifest> m = parse_manifest(ss.str());
  if (!m) return m.error().with_context(path);
  return m;
}

int fail(bool json, const std::string& msg) {
  return command_error("gpu-triage data", msg, static_cast<int>(ExitCode::kCritical), json);
}

}  // namespace

namespace {

// Quick mode about to act (move files, write the list to redo): say first
// what it does not check in the older files.
void warn_quick_acting(const DataCli& c) {
  if (c.deep || c.values || (c.move_bad_to.empty() && c.resume_list.empty())) return;
  print_error("gpu-triage data",
              "quick mode checks the structure of every file, but the CRC32 only of the files "
              "written within " +
                  (c.recent_s % 60 ? std::to_string(c.recent_s) + " s"
                                   : std::to_string(c.recent_s / 60) + " min") +
                  " before the newest sample: a flipped bit or zeroed block inside an older file's "
                  "tensor data goes unseen (torch.load checks no CRC either). Add --deep to "
                  "check every byte before moving files or resuming.");
}

// The manifest to verify, or the reason it cannot be: reading it never
// stops the scan.
std::optional<Manifest> read_manifest(const DataCli& c, std::vector<std::string>& errors) {
  if (c.manifest.empty()) return std::nullopt;
  Result<Manifest> m = load_manifest(c.manifest);
  if (!m) {
    errors.push_back("manifest " + m.error().message + "; not compared");
    return std::nullopt;
  }
  for (std::string& b : m->bad_lines) b = c.manifest + " " + b;
  return std::move(*m);
}

AnalysisOptions analysis_options(const DataCli& c, const DirScan& scan) {
  AnalysisOptions ao{scan.layout, c.range,
                     std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count(),
                     free_bytes(c.dirs.front())};
  ao.rate_per_s = c.rate_per_s;
  return ao;
}

FsRoot proc_root() { return FsRoot(env_or("GPU_TRIAGE_ROOT", "/")); }

// What the advice repeats: the options that chose the bad and changed
// files go into the move command it prints; while a process writes under
// DIR the move is withheld (a move now would be refused).
ResumeContext resume_context(const DataCli& c, const std::vector<Writer>& writers) {
  ResumeContext rc{c.resume_list, c.move_bad_to, {}, "", !writers.empty()};
  if (!writers.empty())
    rc.move_withheld = "a process still writes under DIR (" + writer_name(writers.front()) + ")";
  if (!c.manifest.empty()) rc.selection_options.push_back("--manifest " + shell_word(c.manifest));
  if (c.values) rc.selection_options.push_back("--values");
  if (c.allow_non_finite) rc.selection_options.push_back("--allow-non-finite");
  if (c.layout != Layout::kAuto)
    rc.selection_options.push_back("--layout " + std::string(layout_name(c.layout)));
  return rc;
}

// Moves the bad and changed files out of the tree, so pipelines that skip
// existing files redo them. The writers are read again just before: while
// a live process writes under DIR nothing is moved at all (it may be
// writing the next of the same samples, or rename a temp file over one).
void move_bad(const DataCli& c, const DirScan& scan, DataReport& report) {
  UnseenWriters unseen;
  const std::vector<Writer> writers = writers_under(proc_root(), c.dirs, &unseen);
  if (!writers.empty()) {
    report.move_refused =
        "nothing moved: " + writer_line(writers.front()) +
        (writers.size() > 1 ? " (and " + std::to_string(writers.size() - 1) + " more)" : "") +
        "; stop it, then rerun this command";
    return;
  }
  if (unseen.count > 0) {
    report.move_refused = "nothing moved: " + unseen_writers_words(unseen);
    return;
  }
  std::vector<uint32_t> files = report.bad;
  files.insert(files.end(), report.changed.begin(), report.changed.end());
  // A file both bad and changed is moved once (a second rename would fail).
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (uint32_t i : files) {
    std::string from = scan.path(scan.files[i]);
    Result<std::string> to = move_out(from, scan.files[i].rel, c.move_bad_to);
    if (!to)
      report.errors.push_back(to.error().message);
    else
      report.moved.emplace_back(from, *to);
  }
}

void render(const DataCli& c, const DataReport& report) {
  if (c.nul)
    render_data_nul(report, std::cout);
  else if (c.json)
    render_data_json(report, std::cout);
  else
    render_data_text(report, std::cout);
  std::cout.flush();
}

}  // namespace

int cmd_data(const Command&, int argc, char** argv) {
  int code = 0;
  std::optional<DataCli> c = parse_data_args(argc, argv, code);
  if (!c) return code;
  auto start = std::chrono::steady_clock::now();
  warn_quick_acting(*c);

  // Manifest to verify: its algorithm decides the hash.
  std::vector<std::string> manifest_errors;
  std::optional<Manifest> manifest = read_manifest(*c, manifest_errors);
  if (manifest && c->algo && *c->algo != manifest->algo)
    return usage(c->json, "--algo differs from the manifest's (" +
                              std::string(hash_algo_name(manifest->algo)) + ")");
  ScanOptions so{c->dirs,    c->deep, std::nullopt, c->threads, c->values, c->allow_non_finite,
                 c->recent_s};
  so.layout = c->layout;
  if (manifest)
    so.hash = manifest->algo;
  else if (!c->write_manifest.empty())
    so.hash = c->algo.value_or(HashAlgo::kXxh128);

  // Scan: list and verify every file (and deep-check the recent ones).
  ScanProgress progress;
  Result<DirScan> scan = [&] {
    ProgressLine line(progress);
    return scan_dirs(so, &progress);
  }();
  if (!scan) return fail(c->json, scan.error().message);
  // A file a live process has open for writing is its writer's, not done.
  UnseenWriters unseen;
  const std::vector<Writer> writers = writers_under(proc_root(), c->dirs, &unseen);
  mark_being_written(*scan, writers);

  // Manifest: compare (changed files join the resume set), then write.
  std::optional<ManifestCheck> mc;
  if (manifest) mc = check_manifest(std::move(*manifest), *scan);
  if (!c->write_manifest.empty())
    if (Status s = write_file_atomically(c->write_manifest, manifest_text(*scan)); !s)
      return fail(c->json, s.error().message);

  // Analyse: layout, samples, missing, duplicates, resume set, progress.
  AnalysisOptions ao = analysis_options(*c, *scan);
  if (ao.layout.kind == Layout::kEagle && c->range)
    return usage(c->json, "--expect/--range need global indices; EAGLE numbers files per worker");
  if (mc) ao.changed = mc->changed;
  DataReport report = analyze(*scan, ao);
  report.dirs = c->dirs;
  report.deep = c->deep || c->values;
  if (mc) report.manifest = std::move(mc->diff);
  report.errors.insert(report.errors.end(), manifest_errors.begin(), manifest_errors.end());
  if (c->values) report.values = total_values(*scan, c->allow_non_finite);
  report.writers = writer_lines(writers);
  report.writers_unknown = unseen_writers_words(unseen);
  report.stale_advice = stale_advice(!writers.empty());

  // Move, then advise from what is left in DIR.
  if (!c->move_bad_to.empty()) move_bad(*c, *scan, report);
  if (!c->resume_list.empty() && !report.unreadable_dirs.empty())
    return fail(c->json,
                "--resume-list not written: " + std::to_string(report.unreadable_dirs.size()) +
                    " " + std::string(report.unreadable_dirs.size() == 1 ? "folder" : "folders") +
                    " under DIR could not be read, so what to redo is unknown "
                    "(first: " +
                    report.unreadable_dirs.front() + ")");
  report.how_to_resume = resume_advice(report, resume_context(*c, writers));
  if (!c->resume_list.empty())
    if (Status s = write_resume_list(c->resume_list, report.resume); !s)
      return fail(c->json, s.error().message);

  report.exit_code = data_exit_code(report);
  report.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  render(*c, report);
  return static_cast<int>(report.exit_code);
}

}  // namespace gt
