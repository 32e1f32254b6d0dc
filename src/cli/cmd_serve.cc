// `gpu-triage serve`: a Prometheus exporter. /metrics and /healthz over
// HTTP, from the last collection (src/serve/).
//
//   gpu-triage serve [--listen ADDR:PORT] [--scrape-timeout D] [--max-age D] [--allow-bundle]
//                    [collection options of gpu-triage: --timeout, --sample,
//                     --expect-gpus, --path, --root, --nvml-lib, ...]
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/args.h"
#include "cli/bundle_writer.h"
#include "cli/run_triage.h"
#include "cli/usage.h"
#include "history/run_history.h"
#include "model/exit_code.h"
#include "render/prometheus.h"
#include "report/json_report.h"
#include "serve/http_server.h"
#include "serve/report_cache.h"
#include "util/duration.h"

namespace gt {
namespace {

constexpr const char* kServeProg = "gpu-triage serve";

struct ServeArgs {
  std::string listen = "127.0.0.1:9835";
  std::string scrape_timeout = "10s";
  std::string max_age = "10s";
  bool allow_bundle = false;
  std::vector<std::string> rest;   ///< the collection options, for parse_args
  std::vector<std::string> names;  ///< serve's own options, for suggestions
};

/// One collection, rendered for every scrape that will read it.
ReportCache::Collected collect_and_render(const Options& o, const Command& self) {
  const auto start = std::chrono::steady_clock::now();
  ReportCache::Collected c;
  Report report = collect_report(o, self.stages, c.abandoned_threads);
  // serve records each collection too (a reboot between two triage runs is
  // then still seen): an explicit step, after judging.
  if (has(self.steps, Step::kRecord)) record_run(report);
  auto r = std::make_shared<CachedReport>();
  PrometheusContext ctx;
  ctx.version = GT_VERSION;
  ctx.collection_duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r->metrics = render_prometheus(report, ctx);
  std::ostringstream json;
  render_json(report, json);
  r->json = json.str();
  r->verdict = verdict_word(report);
  r->hostname = report.snapshot.hostname;
  r->finished = std::chrono::steady_clock::now();
  c.report = std::move(r);
  return c;
}

/// Parses serve's own options; everything else is left in `rest`.
std::optional<int> parse_serve_args(int argc, char** argv, ServeArgs& a) {
  CLI::App app{
      "gpu-triage serve: Prometheus exporter. GET /metrics (text format 0.0.4), GET /healthz "
      "(the JSON report), GET /bundle with --allow-bundle.\nAlso takes gpu-triage's collection "
      "options: --timeout, --sample, "
      "--expect-gpus, --path, --root, --nvml-lib, --kernel-log, --no-kernel-log.",
      kServeProg};
  app.allow_extras();  // the collection options go on to parse_args
  app.footer(
      "Exit codes: 0 stopped by SIGINT or SIGTERM; 3 cannot listen on --listen (address in use,\n"
      "  no permission) or the server failed; 64 bad usage.");
  app.add_option("--listen", a.listen, "ADDR:PORT to listen on (default 127.0.0.1:9835)");
  app.add_option("--scrape-timeout", a.scrape_timeout,
                 "Longest a scrape waits for a running collection before it gets the last "
                 "report (default 10s; Prometheus's own scrape timeout, minus 0.5s, if less)");
  app.add_option("--max-age", a.max_age,
                 "A report younger than this is served without collecting again (default 10s)");
  app.add_flag("--allow-bundle", a.allow_bundle,
               "Serve GET /bundle: a bundle of the node built at each request, redacted, one at "
               "a time (off by default: it holds the node's files)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return gt::usage_error(kServeProg, e.what());
  }
  a.rest = app.remaining();
  a.names = option_names(app);
  return std::nullopt;
}

/// Blocks SIGINT/SIGTERM in every thread; one thread waits for them and
/// stops the server. SIGPIPE is ignored (a client that goes away).
void handle_signals(HttpServer& server) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::thread([set, &server] {
    int sig = 0;
    sigwait(&set, &sig);
    server.stop();
  }).detach();
}

/// GET /bundle's builder: the bundle command's stages with serve's
/// collection options, always redacted, no bug report (too slow for HTTP).
std::function<Result<BundleDownload>()> bundle_builder(const Options& o) {
  return [o]() -> Result<BundleDownload> {
    BundleRequest r;
    Result<BuiltBundle> b = build_node_bundle(find_command("bundle")->stages, o, r);
    if (!b) return b.error();
    BundleDownload d;
    d.file_name = std::filesystem::path(b->file).filename().string();
    d.bytes = std::move(b->bytes);
    return d;
  };
}

int serve_usage_error(const std::string& message) { return gt::usage_error(kServeProg, message); }

}  // namespace

int cmd_serve(const Command& self, int argc, char** argv) {
  ServeArgs a;
  if (std::optional<int> rc = parse_serve_args(argc, argv, a)) return *rc;
  std::vector<std::string> words = {kServeProg};
  words.insert(words.end(), a.rest.begin(), a.rest.end());
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  ParsedArgs parsed = parse_args(static_cast<int>(args.size()), args.data(), kServeProg, a.names);
  if (!parsed.options) return static_cast<int>(parsed.exit_code);
  const Options o = *parsed.options;
  if (o.json || o.oneline || o.wide || o.textfile)
    return serve_usage_error("--json, --oneline, --wide and --textfile are not for serve");
  // A bundle is one recorded moment of another node, with that node's record.
  if (o.bundle)
    return serve_usage_error(
        "--bundle is not for serve (it exports this node; gpu-triage --bundle FILE judges a "
        "bundle)");
  HttpServerOptions ho;
  ReportCacheOptions co;
  Result<std::pair<std::string, int>> listen = parse_listen_address(a.listen);
  if (!listen) return serve_usage_error("--listen: " + listen.error().message);
  std::tie(ho.host, ho.port) = *listen;
  for (auto [text, flag, out] :
       {std::tuple{&a.scrape_timeout, "--scrape-timeout", &ho.scrape_timeout},
        std::tuple{&a.max_age, "--max-age", &co.max_age}}) {
    Result<std::chrono::milliseconds> d = parse_duration(*text);
    if (!d) return serve_usage_error(std::string(flag) + ": " + d.error().message);
    *out = *d;
  }
  if (a.allow_bundle) ho.bundle = bundle_builder(o);
  ReportCache cache([o, &self] { return collect_and_render(o, self); }, co);
  HttpServer server(cache, ho);
  handle_signals(server);
  Result<int> port = server.bind();
  if (!port) {
    print_error("gpu-triage serve", port.error().message);
    _exit(static_cast<int>(ExitCode::kUnknown));
  }
  cache.refresh();
  print_error("gpu-triage serve",
              "listening on http://" + ho.host + ":" + std::to_string(*port) +
                  (a.allow_bundle ? " (/metrics, /healthz, /bundle)" : " (/metrics, /healthz)"));
  bool ok = server.run();
  print_error("gpu-triage serve", "stopped");
  // A collection may be stuck inside NVML: leave without destructors.
  std::fflush(nullptr);
  _exit(ok ? 0 : static_cast<int>(ExitCode::kUnknown));
}

}  // namespace gt
