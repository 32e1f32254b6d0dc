#include "watch/screen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/byte_units.h"
#include "util/plural.h"
#include "util/terminal_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

constexpr int kMinSpark = 8, kMaxSpark = 60;

std::string pad(std::string s, size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

std::string rpad(const std::string& s, size_t n) {
  return s.size() >= n ? s : std::string(n - s.size(), ' ') + s;
}

std::string num(std::optional<double> v, const char* unit, int width) {
  if (!v) return rpad("-", static_cast<size_t>(width));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%s", *v, unit);
  return rpad(buf, static_cast<size_t>(width));
}

std::string duration_text(int64_t ms) {
  const int64_t s = std::max<int64_t>(0, ms / 1000);
  char buf[32];
  if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  return buf;
}

LineStyle style_of(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return LineStyle::kCritical;
    case Severity::kWarning:
      return LineStyle::kWarning;
    case Severity::kOk:
    case Severity::kInfo:
      return LineStyle::kPlain;
  }
  return LineStyle::kPlain;
}

/// nvidia-smi's reason words, shortened to fit a row.
std::string reasons_text(const GpuState& g) {
  if (!g.clock_event_reasons) return "-";
  static const std::pair<const char*, const char*> kShort[] = {
      {"gpu_idle", "idle"},
      {"applications_clocks_setting", "app-clocks"},
      {"sw_power_cap", "pwr-cap"},
      {"hw_slowdown", "hw-slow"},
      {"sync_boost", "sync"},
      {"sw_thermal_slowdown", "sw-therm"},
      {"hw_thermal_slowdown", "hw-therm"},
      {"hw_power_brake_slowdown", "pwr-brake"},
      {"display_clock_setting", "display"}};
  std::string out;
  for (const std::string& n : clock_event_reason_names(*g.clock_event_reasons)) {
    std::string word = n;
    for (const auto& [l, s] : kShort)
      if (n == l) word = s;
    out += (out.empty() ? "" : ",") + word;
  }
  return out.empty() ? "full clocks" : out;
}

std::string state_text(const GpuState& g) {
  switch (g.status) {
    case GpuStatus::kOk:
      return reasons_text(g);
    case GpuStatus::kLost:
      return "LOST";
    case GpuStatus::kUnresponsive:
      return "NOT ANSWERING" + (g.stuck_in_call ? " (in " + *g.stuck_in_call + ")" : "");
    case GpuStatus::kInaccessible:
      return "INACCESSIBLE";
  }
  return "?";
}

/// The screen's lines: every line is shown (for_terminal: a name or log
/// text from outside cannot move the cursor, clear or retitle the screen)
/// and fitted to the width after escaping.
class Builder {
 public:
  explicit Builder(const ScreenContext& c) : c_(c) {}
  void add(const std::string& text, LineStyle style = LineStyle::kPlain) {
    lines_.push_back({fit_columns(for_terminal(text), c_.width), style});
  }
  std::vector<ScreenLine>& lines() { return lines_; }

 private:
  const ScreenContext& c_;
  std::vector<ScreenLine> lines_;
};

void header(const WatchModel& m, const ScreenContext& c, Builder& b) {
  const Report& r = m.report();
  const NodeSnapshot& s = r.snapshot;
  char interval[32];
  std::snprintf(interval, sizeof interval, "%gs", c.interval_s);
  // A new bad file under --data is critical (the follower's change says
  // so) though the re-judged report knows nothing of it: the header shows
  // the worse of the two, never WARNING above "2 new BAD files".
  const bool data_bad = c.data && c.data->new_bad > 0 && r.verdict < Severity::kCritical;
  const Severity shown = data_bad ? Severity::kCritical : r.verdict;
  const std::string word = data_bad ? "CRITICAL (new bad data files)" : verdict_word(r);
  b.add("gpu-triage watch  " + s.hostname.value_or("?") + "  " + word + "  " +
            count_of(s.gpus.size(), "GPU", "GPUs") + "  every " + interval + "  watching " +
            duration_text(c.now_unix_ms - m.started_unix_ms()) + "  " +
            format_utc(c.now_unix_ms / 1000, "%H:%M:%SZ"),
        shown >= Severity::kWarning ? style_of(shown) : LineStyle::kHeader);
  std::string nvml =
      s.nvml.initialized ? "" : "NVML: " + s.nvml.error_message.value_or("not usable") + "  ";
  b.add(nvml + "events: " + c.events_source,
        s.nvml.initialized ? LineStyle::kDim : LineStyle::kCritical);
}

int spark_width(int width) {
  // Fixed columns: index 4, two percentages 5+5, memory used 9+1, gaps 2,
  // power 6, temp 5, state 14 at least; the rest is shared by the two
  // sparklines.
  return std::clamp((width - 51) / 2, kMinSpark, kMaxSpark);
}

/// GPU memory in use, binary units as nvidia-smi prints it ("70.6 GiB"),
/// right-aligned in `width`; "-" when unknown.
std::string memory_used(const GpuState& g, size_t width) {
  return rpad(g.memory_used_bytes ? format_bytes(*g.memory_used_bytes) : "-", width);
}

void gpu_rows(const WatchModel& m, const ScreenContext& c, Builder& b) {
  const int sw = spark_width(c.width);
  b.add(pad("GPU util", 9 + sw + 1) + pad("memory", 15 + sw + 1) + " power  temp state",
        LineStyle::kHeader);
  for (const GpuState& g : m.report().snapshot.gpus) {
    auto t = m.tracks().find(g.index);
    if (t == m.tracks().end()) continue;
    const GpuTrack& tr = t->second;
    const bool ok = g.status == GpuStatus::kOk;
    std::string row = rpad(std::to_string(g.index), 3) + " ";
    row += num(tr.util_pct.latest(), "%", 4) + " " +
           pad(sparkline(tr.util_pct.last(static_cast<size_t>(sw)), 100), static_cast<size_t>(sw)) +
           " ";
    row +=
        num(tr.memory_pct.latest(), "%", 4) + " " + memory_used(g, 9) + " " +
        pad(sparkline(tr.memory_pct.last(static_cast<size_t>(sw)), 100), static_cast<size_t>(sw)) +
        " ";
    row += num(tr.power_w.latest(), "W", 5) + " " + num(tr.temp_c.latest(), "C", 4) + " " +
           state_text(g);
    b.add(row, ok ? LineStyle::kPlain : LineStyle::kCritical);
  }
}

void server_rows(const NodeSnapshot& s, Builder& b, size_t max_rows) {
  if (!s.servers) {
    b.add("servers: unknown (the process lists could not be read)", LineStyle::kDim);
    return;
  }
  if (s.servers->empty()) {
    b.add("servers: none holds GPU memory", LineStyle::kDim);
    return;
  }
  b.add("SERVERS", LineStyle::kHeader);
  size_t shown = 0;
  for (const Server& sv : *s.servers) {
    if (shown++ == max_rows) {
      b.add("  ... " + std::to_string(s.servers->size() - max_rows) + " more (s)", LineStyle::kDim);
      break;
    }
    std::string row = "  " + describe_server(sv);
    if (sv.model) row += "  model " + *sv.model;
    if (sv.user) row += "  user " + *sv.user;
    b.add(row);
  }
}

std::string rate_text(std::optional<double> per_min) {
  if (!per_min) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", *per_min);
  return buf;
}

void data_rows(const ScreenContext& c, Builder& b) {
  if (!c.data) return;
  const DataFollowProgress& d = *c.data;
  if (d.gone) {
    b.add("DATA " + c.data_dir + ": GONE (unmounted or removed)", LineStyle::kCritical);
    return;
  }
  if (d.waiting) {
    b.add("DATA " + c.data_dir + ": not there yet (waiting for it)", LineStyle::kPlain);
    return;
  }
  b.add("DATA " + c.data_dir, LineStyle::kHeader);
  std::string row = "  pace " + rate_text(d.per_min) + " files/min (before " +
                    rate_text(d.previous_per_min) + "/min)";
  if (d.remaining) {
    row += ", " + std::to_string(*d.remaining) + " left";
    row += d.eta_s ? ", ETA " + duration_text(static_cast<int64_t>(*d.eta_s * 1000)) : ", ETA ?";
  }
  row += ", " + std::to_string(d.new_intact) + " new intact";
  if (d.pending) row += ", " + std::to_string(d.pending) + " being written";
  b.add(row);
  // Each on a row of its own, the file's name first: at 80 columns the
  // pace row has no room left for them.
  if (d.last_bad)
    b.add("  " + count_of(d.new_bad, "new BAD file", "new BAD files") +
              (d.new_bad > 1 ? ", the last: " : ": ") + d.last_bad->rel + ": " + d.last_bad->why,
          LineStyle::kCritical);
  if (d.stalled) b.add("  STALLED: " + d.stall_reason, LineStyle::kWarning);
}

std::string change_text(const Change& ch) {
  std::string t =
      format_utc(ch.time_unix_ms / 1000, "%H:%M:%S") + " " + change_kind_name(ch.kind) + " ";
  if (!ch.id.empty()) t += ch.id + " ";
  if (ch.gpu_index) t += "GPU " + std::to_string(*ch.gpu_index) + " ";
  if (ch.server) t += "[" + *ch.server + "] ";
  return t + ch.text;
}

void new_rows(const WatchModel& m, Builder& b, size_t rows) {
  if (rows == 0) return;
  b.add("NEW SINCE START", LineStyle::kHeader);
  --rows;
  for (const Finding& f : m.report().findings) {
    if (rows == 0) return;
    if (!m.is_new(f)) continue;
    std::string gpu = f.subject.gpu_index ? " GPU " + std::to_string(*f.subject.gpu_index) : "";
    b.add("  NOW " + std::string(severity_name(f.severity)) + " " + f.id + gpu + ": " + f.title,
          LineStyle::kNew);
    --rows;
  }
  const auto& recent = m.recent();
  for (auto it = recent.rbegin(); it != recent.rend() && rows > 0; ++it, --rows)
    b.add("  " + change_text(*it),
          it->kind == ChangeKind::kFindingCleared ? LineStyle::kOk : style_of(it->severity));
}

void main_view(const WatchModel& m, const ScreenContext& c, Builder& b) {
  header(m, c, b);
  gpu_rows(m, c, b);
  server_rows(m.report().snapshot, b, 4);
  data_rows(c, b);
  const int used = static_cast<int>(b.lines().size());
  new_rows(m, b, static_cast<size_t>(std::max(0, c.height - used - 1)));
}

// --data DIR's new bad files (newest first) and its stalls, in the `f` view:
// what watch found in the job's output is a finding too.
void data_findings(const ScreenContext& c, Builder& b) {
  if (!c.data) return;
  const DataFollowProgress& d = *c.data;
  b.add("DATA " + c.data_dir + ": " + count_of(d.new_bad, "new bad file", "new bad files") +
            (d.stalled ? ", STALLED" : ""),
        LineStyle::kHeader);
  if (d.gone)
    b.add("NEW critical data folder is gone (unmounted or removed)", LineStyle::kCritical);
  if (d.stalled) b.add("NEW warning stalled: " + d.stall_reason, LineStyle::kWarning);
  for (auto it = d.bad_files.rbegin(); it != d.bad_files.rend(); ++it)
    b.add("NEW critical " + format_utc(it->time_unix_ms / 1000, "%H:%M:%S") + " " + it->rel + ": " +
              it->why,
          LineStyle::kCritical);
  if (d.new_bad > d.bad_files.size())
    b.add("    ... " + std::to_string(d.new_bad - d.bad_files.size()) +
              " more (gpu-triage data lists them all)",
          LineStyle::kDim);
  for (auto it = d.stalls.rbegin(); it != d.stalls.rend(); ++it)
    b.add("    " + format_utc(it->time_unix_ms / 1000, "%H:%M:%S") + " " + it->text,
          LineStyle::kDim);
}

void findings_view(const WatchModel& m, const ScreenContext& c, Builder& b) {
  header(m, c, b);
  b.add("FINDINGS (NEW: raised since watch started)", LineStyle::kHeader);
  if (m.report().findings.empty()) b.add("  none");
  for (const Finding& f : m.report().findings) {
    std::string gpu = f.subject.gpu_index ? " GPU " + std::to_string(*f.subject.gpu_index) : "";
    b.add(std::string(m.is_new(f) ? "NEW " : "    ") + severity_name(f.severity) + " " + f.id +
              gpu + ": " + f.title,
          m.is_new(f) ? LineStyle::kNew : style_of(f.severity));
    if (!f.evidence.empty()) b.add("      " + f.evidence, LineStyle::kDim);
  }
  data_findings(c, b);
}

void servers_view(const WatchModel& m, const ScreenContext& c, Builder& b) {
  header(m, c, b);
  const NodeSnapshot& s = m.report().snapshot;
  server_rows(s, b, 1000);
  if (!s.servers) return;
  for (const Server& sv : *s.servers) {
    b.add("");
    b.add(describe_server(sv), LineStyle::kHeader);
    if (sv.root_cmdline) b.add("  command " + *sv.root_cmdline);
    if (sv.owner_kind)
      b.add("  started by " + std::string(owner_kind_name(*sv.owner_kind)) + " " +
            sv.owner_name.value_or("?") +
            (sv.restart_policy ? " (" + *sv.restart_policy + ")" : ""));
    if (sv.port) b.add("  port " + std::to_string(*sv.port));
    b.add("  processes " + std::to_string(sv.members.size()));
  }
}

void gpu_view(const WatchModel& m, const ScreenContext& c, Builder& b) {
  header(m, c, b);
  const NodeSnapshot& s = m.report().snapshot;
  const GpuState* g = nullptr;
  for (const GpuState& x : s.gpus)
    if (x.index == c.gpu) g = &x;
  auto t = m.tracks().find(c.gpu);
  if (!g || t == m.tracks().end()) {
    b.add("GPU " + std::to_string(c.gpu) + ": not in this tick");
    return;
  }
  b.add("GPU " + std::to_string(g->index) + "  " + g->name.value_or("?") + "  " +
            g->pci_bus_id.value_or("?") + "  " + g->uuid.value_or("?"),
        LineStyle::kHeader);
  b.add("  state   " + state_text(*g),
        g->status == GpuStatus::kOk ? LineStyle::kPlain : LineStyle::kCritical);
  if (auto srv = server_on_gpu(s, g->index)) b.add("  server  " + *srv);
  const size_t w =
      static_cast<size_t>(std::clamp(c.width - 18, 10, static_cast<int>(kHistoryPoints)));
  const GpuTrack& tr = t->second;
  b.add("  util   " + num(tr.util_pct.latest(), "%", 5) + " " +
        sparkline(tr.util_pct.last(w), 100));
  b.add("  memory " + num(tr.memory_pct.latest(), "%", 5) + " " +
        sparkline(tr.memory_pct.last(w), 100));
  b.add("         " +
        (g->memory_used_bytes ? format_bytes(*g->memory_used_bytes) : std::string("?")) +
        " used of " +
        (g->memory_total_bytes ? format_bytes(*g->memory_total_bytes) : std::string("?")));
  b.add("  power  " + num(tr.power_w.latest(), "W", 5) + " " +
        sparkline(tr.power_w.last(w), g->power_limit_w.value_or(1000)));
  b.add("  temp   " + num(tr.temp_c.latest(), "C", 5) + " " + sparkline(tr.temp_c.last(w), 100));
  for (const Finding& f : m.report().findings)
    if (f.subject.gpu_index == g->index)
      b.add("  " + std::string(severity_name(f.severity)) + " " + f.id + ": " + f.title,
            m.is_new(f) ? LineStyle::kNew : style_of(f.severity));
}

void help_view(const WatchModel& m, const ScreenContext& c, Builder& b) {
  header(m, c, b);
  b.add("KEYS", LineStyle::kHeader);
  b.add("  q        quit (Ctrl-C too): the terminal is restored");
  b.add("  f        findings: every finding now, NEW ones raised since watch started");
  b.add("  s        servers: what holds the GPUs, by launcher, with its owner");
  b.add("  g        one GPU's detail; g again for the next GPU");
  b.add("  ?        this help; any of these keys again, or Esc, goes back");
  b.add("");
  b.add("Sparklines span the last " + std::to_string(kHistoryPoints) +
        " ticks at most; a blank is a tick the GPU did not answer.");
}

}  // namespace

std::string fit_columns(const std::string& text, int width) {
  if (width <= 0) return "";
  // Count code points (UTF-8 lead bytes); every glyph used here is one column.
  int cols = 0;
  size_t i = 0, cut = std::string::npos;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (cols == width - 1) cut = i;
    if (++cols > width) return text.substr(0, cut) + "…";
  }
  return text;
}

std::vector<ScreenLine> render_screen(const WatchModel& m, const ScreenContext& c) {
  Builder b(c);
  switch (c.view) {
    case ScreenView::kMain:
      main_view(m, c, b);
      break;
    case ScreenView::kFindings:
      findings_view(m, c, b);
      break;
    case ScreenView::kServers:
      servers_view(m, c, b);
      break;
    case ScreenView::kGpu:
      gpu_view(m, c, b);
      break;
    case ScreenView::kHelp:
      help_view(m, c, b);
      break;
  }
  std::vector<ScreenLine> lines = std::move(b.lines());
  const size_t body = static_cast<size_t>(std::max(1, c.height - 1));
  if (lines.size() > body) lines.resize(body);
  lines.resize(body);  // blank lines down to the footer: the old screen is erased
  lines.push_back({fit_columns("q quit  f findings  s servers  g GPU detail  ? help", c.width),
                   LineStyle::kDim});
  return lines;
}

}  // namespace gt
