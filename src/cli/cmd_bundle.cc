// `gpu-triage bundle`: evidence before action (issue 37). One archive of
// the node as the triage saw it: the report (JSON and text), the NVML
// answers, copies of exactly the /proc, /sys, /etc and log files the
// collectors read (the fixture-tree layout, so `--root` replays them),
// `nvidia-smi -q -x`, optionally nvidia-bug-report.sh, and a manifest.
// Bounded (each collector's deadline, the archive's --max-size, a disk
// margin), redacted by default (util/redact.h), written atomically.
//
//   gpu-triage bundle [-o FILE] [--max-size SIZE] [--no-redact] [--with-bug-report]
//                     [collection options of gpu-triage: --timeout, --root, --nvml-lib, ...]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "bundle/bundle_file.h"
#include "cli/args.h"
#include "cli/bundle_writer.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "model/exit_code.h"
#include "render/bundle_manifest.h"
#include "util/duration.h"
#include "util/size_arg.h"

namespace gt {
namespace {

constexpr const char* kBundleProg = "gpu-triage bundle";
struct BundleArgs {
  std::string file;  ///< empty: gpu-triage-bundle-HOST-STAMP.tar.zst here
  std::string max_size = "64MiB";
  std::string min_free = "256MiB";
  std::string smi_timeout = "30s";
  std::string bug_report_timeout = "5m";
  bool no_redact = false;
  bool with_bug_report = false;
  bool output_given = false;       ///< -o was given (an empty name is refused)
  std::vector<std::string> rest;   ///< the collection options, for parse_args
  std::vector<std::string> names;  ///< bundle's own options, for suggestions
};

std::optional<int> parse_bundle_args(int argc, char** argv, BundleArgs& a) {
  CLI::App app{
      "gpu-triage bundle: one archive of the node as the triage saw it, before anything is "
      "changed: the report (JSON and text), the NVML answers, copies of the /proc, /sys, /etc "
      "and log files read, nvidia-smi -q -x, optionally nvidia-bug-report.sh, and "
      "manifest.json (each member's size and sha256, each collector's outcome, what was "
      "redacted or cut).\nAlso takes gpu-triage's collection options: --timeout, --sample, "
      "--root, --nvml-lib, --no-kernel-log, --path, --state-dir.",
      kBundleProg};
  app.allow_extras();  // the collection options go on to parse_args
  app.footer(
      "Exit codes: 0 the bundle was written (whatever the node's verdict); 64 bad usage; 74 it\n"
      "  could not be written (a full, read-only or missing folder, --max-size too small):\n"
      "  nothing is left behind.");
  CLI::Option* output =
      app.add_option("-o,--output", a.file,
                     "Archive to write: NAME.tar.zst (zstd) or NAME.tar.gz (gzip) (default "
                     "gpu-triage-bundle-HOST-TIME.tar.zst here)");
  app.add_option("--max-size", a.max_size,
                 "Largest archive (default 64MiB): the kernel log, copied logs and the bug "
                 "report are cut first, their oldest bytes, each cut in the manifest");
  app.add_option("--min-free", a.min_free,
                 "Space the archive's filesystem must keep free after it (default 256MiB)");
  app.add_flag("--no-redact", a.no_redact,
               "Keep secrets (tokens, keys, passwords in environments, command lines, "
               "Authorization headers, URLs); by default they read <redacted>");
  app.add_flag("--with-bug-report", a.with_bug_report,
               "Also run nvidia-bug-report.sh (killed at --bug-report-timeout)");
  app.add_option("--bug-report-timeout", a.bug_report_timeout,
                 "Deadline of nvidia-bug-report.sh (default 5m); at it, what it wrote is kept "
                 "and the manifest says it timed out");
  app.add_option("--smi-timeout", a.smi_timeout, "Deadline of nvidia-smi -q -x (default 30s)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return usage_error(kBundleProg, e.what());
  }
  a.rest = app.remaining();
  a.output_given = output->count() > 0;
  a.names = option_names(app);
  return std::nullopt;
}

/// The limits of `a`, or a usage error's message.
Result<BundleLimits> limits_of(const BundleArgs& a) {
  BundleLimits l;
  for (auto [text, flag, out] : {std::tuple{&a.max_size, "--max-size", &l.max_size_bytes},
                                 std::tuple{&a.min_free, "--min-free", &l.min_free_bytes}}) {
    Result<uint64_t> s = parse_size_bytes(*text);
    if (!s) return s.error().with_context(flag);
    *out = *s;
  }
  for (auto [text, flag, out] :
       {std::tuple{&a.smi_timeout, "--smi-timeout", &l.smi_timeout},
        std::tuple{&a.bug_report_timeout, "--bug-report-timeout", &l.bug_report_timeout}}) {
    Result<std::chrono::milliseconds> d = parse_duration(*text);
    if (!d) return d.error().with_context(flag);
    *out = *d;
  }
  return l;
}

int write_bundle(const Command& self, const BundleArgs& a, const BundleLimits& l,
                 const Options& o) {
  BundleRequest r;
  r.file = a.file;
  r.limits = l;
  r.redact = !a.no_redact;
  r.with_bug_report = a.with_bug_report;
  Result<BundleWritten> w = write_node_bundle(self.stages, o, r);
  if (!w) {
    print_error(kBundleProg, w.error().message);
    return static_cast<int>(ExitCode::kIoError);
  }
  std::cout << render_bundle_written(w->file, w->size_bytes, w->manifest);
  return 0;
}

}  // namespace

int cmd_bundle(const Command& self, int argc, char** argv) {
  BundleArgs a;
  if (std::optional<int> rc = parse_bundle_args(argc, argv, a)) return *rc;
  std::vector<std::string> words = {kBundleProg};
  words.insert(words.end(), a.rest.begin(), a.rest.end());
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  ParsedArgs parsed = parse_args(static_cast<int>(args.size()), args.data(), kBundleProg, a.names);
  if (!parsed.options) return static_cast<int>(parsed.exit_code);
  const Options& o = *parsed.options;
  if (o.json || o.oneline || o.textfile || o.smi_xml || o.cuda || o.bundle)
    return usage_error(kBundleProg,
                       "--json, --oneline, --textfile, --smi-xml, --bundle and --cuda are not for "
                       "bundle "
                       "(it records this node; its report.json is the JSON)");
  // The replay reads the tree's kernel log: a FILE's findings would be lost
  // between the bundle and its replay, so it is refused, never dropped.
  if (o.kernel_log_file)
    return usage_error(kBundleProg,
                       "--kernel-log FILE is not for bundle: a bundle records this boot's kernel "
                       "log (/dev/kmsg or the journal) and its replay reads that; triage the "
                       "file with gpu-triage --kernel-log FILE");
  if (a.output_given && a.file.empty()) return usage_error(kBundleProg, "-o: an empty file name");
  Result<BundleLimits> limits = limits_of(a);
  if (!limits) return usage_error(kBundleProg, limits.error().message);
  if (!a.file.empty() && !compression_for(a.file))
    return usage_error(kBundleProg,
                       "-o " + a.file + ": name it NAME.tar.zst (zstd) or NAME.tar.gz (gzip)");
  const int code = write_bundle(self, a, *limits, o);
  // A thread may be stuck inside NVML: leave without destructors.
  std::cout.flush();
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace gt
