// `gpu-triage watch`: follow the node live (src/watch/): the GPUs by
// server, driver events as they happen, and with --data DIR the job's new
// output verified as it is written. A full-screen view on a terminal; one
// line (or JSON object) per change otherwise.
//
// The loop, once per --interval: follow the kernel log and NVML events,
// collect and judge one tick (never past --timeout; a hung GPU is not asked
// again while its thread is stuck), follow DIR, say what changed. Between
// ticks it waits in poll() on the keys and a signalfd (SIGINT, SIGTERM,
// SIGWINCH), so a key or a resize is answered at once.
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "model/exit_code.h"
#include "util/duration.h"
#include "watch/data_follow.h"
#include "watch/events.h"
#include "watch/kernel_follow.h"
#include "watch/log_render.h"
#include "watch/nvml_events.h"
#include "watch/screen.h"
#include "watch/terminal.h"
#include "watch/tick_collector.h"
#include "watch/watch_model.h"

namespace gt {
namespace {

constexpr const char* kWatchProg = "gpu-triage watch";

struct WatchArgs {
  std::string interval = "2s";
  bool log = false;
  bool json = false;
  std::optional<std::string> data_dir;
  std::optional<int64_t> expect;
  bool values = false;
  std::vector<std::string> rest;   ///< collection options, for parse_args
  std::vector<std::string> names;  ///< watch's own options, for suggestions
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<int> parse_watch_args(int argc, char** argv, WatchArgs& a) {
  CLI::App app{
      "gpu-triage watch: follow the node live. GPUs by server with a short history, driver "
      "events as they happen (NVML event sets and the kernel log), and with --data DIR the "
      "job's new output verified as it is written.\nFull screen on a terminal; otherwise (or "
      "--log) one line per change, --json one JSON object per line.\nAlso takes gpu-triage's "
      "collection options: --timeout, --sample, --expect-gpus, --root, --nvml-lib, "
      "--kernel-log, --no-kernel-log, --color, --no-color.",
      kWatchProg};
  app.allow_extras();
  app.footer(
      "Keys (full screen): q quit, f findings, s servers, g one GPU's detail (again: the next),\n"
      "  ? help; any of them again or Esc goes back.\n"
      "Exit codes: 0 stopped by q, SIGINT or SIGTERM, or stdout closed; 64 bad usage.");
  app.add_option("--interval", a.interval, "Time between ticks (default 2s; 500ms at least)");
  app.add_flag("--log", a.log,
               "One timestamped line per change even on a terminal (the default when stdout "
               "is not one)");
  app.add_flag("--json", a.json, "One JSON object per change, one a line (implies --log)");
  app.add_option("--data", a.data_dir,
                 "Follow the job's output in DIR: new files per minute against the previous "
                 "pace, each new file verified (structure and CRC) once unchanged for 3 s, a "
                 "bad file, a stall or DIR gone raised at once");
  app.add_option("--expect", a.expect, "With --data: samples 0..N-1 are expected (ETA)")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}));
  app.add_flag("--values", a.values,
               "With --data: also count NaN/Inf in each new file's float tensors; one makes the "
               "file bad");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return usage_error(kWatchProg, e.what());
  }
  a.rest = app.remaining();
  a.names = option_names(app);
  return std::nullopt;
}

/// The collection options, through the triage's own parser.
std::optional<Options> collection_options(const WatchArgs& a, int& rc) {
  std::vector<std::string> words = {kWatchProg};
  words.insert(words.end(), a.rest.begin(), a.rest.end());
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  ParsedArgs parsed = parse_args(static_cast<int>(args.size()), args.data(), kWatchProg, a.names);
  rc = static_cast<int>(parsed.exit_code);
  if (!parsed.options) return std::nullopt;
  const Options& o = *parsed.options;
  // (The fleet's options are not the triage's: its parser refuses them.)
  if (o.oneline || o.wide || o.textfile || o.smi_xml || o.bundle || o.data_dir || o.json ||
      o.state_dir || o.no_state || o.paths.size() > 1) {
    rc = usage_error(kWatchProg,
                     "--oneline, --wide, --textfile, --smi-xml, --bundle, --path, --state-dir and "
                     "--no-state are not for watch");
    return std::nullopt;
  }
  return o;
}

/// SIGINT, SIGTERM and SIGWINCH arrive on a descriptor, in the loop; blocked
/// before any thread starts, so every thread inherits the mask.
int signal_descriptor() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGWINCH);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a closed pipe is a failed write, handled
  return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

class Watch {
 public:
  Watch(const WatchArgs& a, const Options& o, std::chrono::milliseconds interval, Stages stages)
      : a_(a), o_(o), interval_(interval), stages_(stages) {}
  int run();

 private:
  bool tick();
  bool emit(const std::vector<Change>& changes);
  bool redraw();
  /// Waits until `until`, answering keys and signals. False: time to stop.
  bool wait(std::chrono::steady_clock::time_point until);
  bool key(char k);
  /// A SIGINT or SIGTERM arrived (read without waiting): a long tick stops
  /// between its steps, not after them all.
  bool stop_asked();
  static Change note(std::string text, int64_t t);
  std::string events_source() const;
  static std::string event_key(const Change& c);
  bool first_time(const Change& c);
  void judge_as_logged(const Change& c);

  const WatchArgs& a_;
  const Options& o_;
  std::chrono::milliseconds interval_;
  Stages stages_;  ///< what each tick collects (the watch command's entry)
  std::unique_ptr<TickCollector> collector_;
  std::unique_ptr<KernelLogFollower> klog_;
  std::unique_ptr<NvmlEventWatcher> nvml_events_;
  std::unique_ptr<DataFollower> data_;
  std::unique_ptr<Terminal> term_;
  WatchModel model_;
  ScreenContext screen_;
  bool color_ = false;
  int sig_fd_ = -1;
  /// The events' sources as last said ("" before the first time).
  std::string said_sources_;
  /// Keys of the events said (id and GPU), across both sources.
  std::set<std::string> said_events_;
  /// Xids NVML reported, as log events for the checks.
  std::vector<KernelLogEvent> from_nvml_;
  static constexpr size_t kMaxEventKeys = 4096;
};

std::string Watch::events_source() const {
  std::string k;
  if (!klog_)
    k = "kernel log not read (--no-kernel-log)";
  else if (!klog_->readable())
    k = "kernel log unreadable (" + klog_->log().sources[0].name + ": " +
        klog_->log().sources[0].error.value_or("?") + ")";
  else
    k = "kernel log (" + klog_->log().sources[0].name + ")";
  if (nvml_events_ && nvml_events_->supported()) return "NVML events and " + k;
  const std::string nvml = nvml_events_ ? nvml_events_->why_not() : "no NVML";
  if (!klog_) return "none yet: " + k + ", " + nvml;
  return k + " only (" + nvml + ")";
}

bool Watch::emit(const std::vector<Change>& changes) {
  if (term_) return true;
  std::ostringstream out;
  for (const Change& c : changes) (a_.json ? render_change_json : render_change_line)(c, out);
  return out.str().empty() || write_all(STDOUT_FILENO, out.str());
}

bool Watch::redraw() {
  if (!term_) return true;
  std::tie(screen_.width, screen_.height) = term_->size();
  screen_.now_unix_ms = now_ms();
  screen_.events_source = events_source();
  screen_.data = data_ ? &data_->progress() : nullptr;
  return term_->draw(render_screen(model_, screen_), color_);
}

bool Watch::tick() {
  const int64_t t = now_ms();
  // Events first: what arrived since the last tick is judged in this one.
  std::vector<KernelLogEvent> fresh;
  std::vector<std::string> klog_notes;  // rotated, truncated, appeared
  if (klog_) {
    fresh = klog_->poll();
    klog_notes = klog_->take_notes();
  }
  std::vector<Change> nvml;
  if (nvml_events_) nvml = nvml_events_->drain(t);
  for (const Change& c : nvml) judge_as_logged(c);
  KernelLog log = klog_ ? klog_->log() : KernelLog{};
  log.events.insert(log.events.end(), from_nvml_.begin(), from_nvml_.end());
  if (stop_asked()) return false;
  // Collect and judge, then what changed.
  std::vector<Change> changes = model_.apply(collector_->collect(log), t);
  if (stop_asked()) return false;
  const NodeSnapshot& snap = model_.report().snapshot;
  if (nvml_events_ && !nvml_events_->started()) nvml_events_->start(snap);
  std::vector<Change> events;
  for (const KernelLogEvent& e : fresh) events.push_back(kernel_event_change(e, snap, t));
  for (Change& c : nvml) {
    attribute(c, snap);
    events.push_back(c);
  }
  // Each event once: the kernel log and NVML may both report one Xid, and
  // the finding it raises is that event, already said.
  std::erase_if(events, [&](const Change& c) { return !first_time(c); });
  std::erase_if(changes, [&](const Change& c) {
    return c.kind == ChangeKind::kFindingRaised && said_events_.count(event_key(c));
  });
  for (std::string& text : klog_notes) changes.push_back(note(std::move(text), t));
  // Which sources events come from, said once they are known (NVML
  // registration runs on its own thread) or after a few ticks regardless,
  // and again, before the events, whenever that changes: a registration
  // that ends late is said before its first event, never "not read" then
  // an NVML event (issue 48).
  const std::string sources = "events: " + events_source();
  const bool known = !nvml_events_ || nvml_events_->settled() || model_.ticks() >= 5;
  if (sources != said_sources_ && (known || !said_sources_.empty() || !events.empty())) {
    said_sources_ = sources;
    changes.push_back(note(sources, t));
  }
  changes.insert(changes.end(), events.begin(), events.end());
  if (data_) {
    std::vector<Change> d = data_->poll(t);
    changes.insert(changes.end(), d.begin(), d.end());
  }
  model_.note(changes);
  return emit(changes) && redraw();
}

Change Watch::note(std::string text, int64_t t) {
  Change c;
  c.time_unix_ms = t;
  c.kind = ChangeKind::kNote;
  c.text = std::move(text);
  return c;
}

bool Watch::stop_asked() {
  struct pollfd fd = {sig_fd_, POLLIN, 0};
  if (::poll(&fd, 1, 0) <= 0) return false;
  signalfd_siginfo si{};
  bool stop = false;
  while (::read(sig_fd_, &si, sizeof si) == sizeof si) stop |= si.ssi_signo != SIGWINCH;
  return stop;  // a resize is redrawn at the tick's end anyway
}

std::string Watch::event_key(const Change& c) {
  return c.id + "|" + (c.gpu_index ? std::to_string(*c.gpu_index) : c.pci_bus_id.value_or("?"));
}

bool Watch::first_time(const Change& c) {
  if (said_events_.size() >= kMaxEventKeys) return true;  // past the bound: said again
  return said_events_.insert(event_key(c)).second;
}

void Watch::judge_as_logged(const Change& c) {
  // An Xid from NVML joins the judged log as the kernel would have logged
  // it, so the verdict and gpu.xid.* see it even when the log is unreadable.
  const std::string prefix = "gpu.xid.";
  if (c.id.rfind(prefix, 0) != 0 || !c.gpu_index || from_nvml_.size() >= kMaxEventKeys) return;
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = std::atoi(c.id.c_str() + prefix.size());
  for (const GpuState& g : model_.report().snapshot.gpus)
    if (g.index == *c.gpu_index && g.pci_bus_id) e.pci_bus_id = normalize_pci_bus_id(*g.pci_bus_id);
  if (!e.pci_bus_id) return;
  e.boot = LogBoot::kCurrent;
  e.detail = "reported by an NVML event set";
  e.line = "NVML event: Xid " + std::to_string(*e.code) + " on GPU " + std::to_string(*c.gpu_index);
  from_nvml_.push_back(e);
}

bool Watch::key(char k) {
  auto toggle = [&](ScreenView v) { screen_.view = screen_.view == v ? ScreenView::kMain : v; };
  switch (k) {
    case 'q':
    case 'Q':
      return false;
    case 'f':
      toggle(ScreenView::kFindings);
      break;
    case 's':
      toggle(ScreenView::kServers);
      break;
    case '?':
    case 'h':
      toggle(ScreenView::kHelp);
      break;
    case 27:
      screen_.view = ScreenView::kMain;
      break;
    case 'g': {
      const size_t n = model_.report().snapshot.gpus.size();
      if (screen_.view != ScreenView::kGpu) {
        screen_.view = ScreenView::kGpu;
        screen_.gpu = 0;
      } else if (n == 0 || ++screen_.gpu >= n) {
        screen_.view = ScreenView::kMain;
      }
      break;
    }
    default:
      return true;
  }
  return redraw();
}

bool Watch::wait(std::chrono::steady_clock::time_point until) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    struct pollfd fds[2] = {{sig_fd_, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    const int n = ::poll(fds, term_ ? 2 : 1, static_cast<int>(left.count()));
    if (n <= 0) continue;
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si{};
      while (::read(sig_fd_, &si, sizeof si) == sizeof si) {
        if (si.ssi_signo != SIGWINCH) return false;
        if (!redraw()) return false;
      }
    }
    if (term_ && (fds[1].revents & (POLLIN | POLLHUP))) {
      char buf[16];
      const ssize_t r = ::read(STDIN_FILENO, buf, sizeof buf);
      if (r == 0) return false;  // the terminal went away
      for (ssize_t i = 0; i < r; ++i)
        if (!key(buf[i])) return false;
    }
  }
}

int Watch::run() {
  sig_fd_ = signal_descriptor();
  if (sig_fd_ < 0) {
    print_error(kWatchProg, "signalfd failed");
    return static_cast<int>(ExitCode::kUnknown);
  }
  const bool tty = isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1;
  if (tty && !a_.log && !a_.json) {
    term_ = std::make_unique<Terminal>(STDIN_FILENO, STDOUT_FILENO);
    const char* no_color = std::getenv("NO_COLOR");
    color_ = o_.color.value_or(no_color == nullptr || *no_color == '\0');
  }
  screen_.interval_s = interval_.count() / 1000.0;
  screen_.data_dir = a_.data_dir.value_or("");
  TickOptions to;
  to.nvml_lib = o_.nvml_lib;
  to.root = o_.root;
  to.timeout = o_.timeout;
  // The utilisation window fits inside a tick, leaving room for the rest.
  to.sample_window = std::min(o_.sample_window, interval_ / 2);
  to.expect_gpus = o_.expect_gpus;
  to.stages = stages_;
  if (o_.no_kernel_log) to.stages = without(to.stages, Stage::kKernelLog);
  collector_ = std::make_unique<TickCollector>(to);
  if (!o_.no_kernel_log) klog_ = std::make_unique<KernelLogFollower>(o_.root, o_.kernel_log_file);
  nvml_events_ = std::make_unique<NvmlEventWatcher>(collector_->library());
  if (a_.data_dir)
    data_ = std::make_unique<DataFollower>(*a_.data_dir, a_.expect, now_ms(), a_.values);
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    if (!tick()) break;
    next += interval_;
    // A tick that overran its interval (a hung GPU's deadline) starts the next at once.
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    if (!wait(next)) break;
  }
  if (term_) term_->restore();
  return 0;
}

}  // namespace

int cmd_watch(const Command& self, int argc, char** argv) {
  WatchArgs a;
  if (std::optional<int> rc = parse_watch_args(argc, argv, a)) return *rc;
  int rc = 0;
  std::optional<Options> o = collection_options(a, rc);
  if (!o) return rc;
  if ((a.expect || a.values) && !a.data_dir)
    return usage_error(kWatchProg, "--expect and --values go with --data DIR");
  if (o->kernel_log_file && !o->no_kernel_log)
    if (std::optional<std::string> why = refuse_kernel_log_file(*o->kernel_log_file))
      return usage_error(kWatchProg, "--kernel-log " + *o->kernel_log_file + ": " + *why);
  Result<std::chrono::milliseconds> interval = parse_duration(a.interval);
  if (!interval) return usage_error(kWatchProg, "--interval: " + interval.error().message);
  if (interval->count() < 500)
    return usage_error(kWatchProg, "--interval must be 500ms at least, got '" + a.interval + "'");
  if (a.json) a.log = true;
  Watch w(a, *o, *interval, self.stages);
  const int code = w.run();
  // A thread may still be stuck inside NVML: leave without destructors.
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace gt
