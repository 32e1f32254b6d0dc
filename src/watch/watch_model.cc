#include "watch/watch_model.h"

#include <algorithm>

#include "model/server.h"
#include "util/plural.h"
#include "watch/events.h"

namespace gt {
namespace {

/// "0-7", "0,2,5": a server's GPU indices, runs folded.
std::string gpu_list(const Server& s) {
  std::string out;
  const auto& g = s.gpus;
  for (size_t i = 0; i < g.size();) {
    size_t j = i;
    while (j + 1 < g.size() && g[j + 1].index == g[j].index + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(g[i].index);
    if (j > i) out += "-" + std::to_string(g[j].index);
    i = j + 1;
  }
  return out;
}

std::optional<double> mean_util(const GpuState& g) {
  if (!g.utilization_gpu_pct) return std::nullopt;
  return g.utilization_gpu_pct->mean;
}

const GpuState* gpu_at(const NodeSnapshot& snap, uint32_t index) {
  for (const GpuState& g : snap.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

/// Work on a server's GPUs: the highest mean utilisation, nullopt when no
/// GPU of it reported one (unknown is not idle).
std::optional<double> server_util(const NodeSnapshot& snap, const Server& s) {
  std::optional<double> best;
  for (const ServerGpu& sg : s.gpus) {
    const GpuState* g = gpu_at(snap, sg.index);
    if (!g) continue;
    if (std::optional<double> u = mean_util(*g)) best = std::max(best.value_or(0), *u);
  }
  return best;
}

Change server_change(ChangeKind kind, Severity sev, const Server& s, std::string text, int64_t t) {
  Change c;
  c.time_unix_ms = t;
  c.kind = kind;
  c.severity = sev;
  c.server = describe_server(s);
  c.text = std::move(text);
  return c;
}

}  // namespace

std::string describe_server(const Server& s) {
  std::string out = s.kind + " " + s.id;
  std::vector<std::string> parts;
  if (s.tensor_parallel) parts.push_back("TP " + std::to_string(*s.tensor_parallel));
  if (!s.gpus.empty()) parts.push_back((s.gpus.size() == 1 ? "GPU " : "GPUs ") + gpu_list(s));
  if (parts.empty()) return out;
  out += " (";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + ")";
}

std::optional<std::string> server_on_gpu(const NodeSnapshot& snap, uint32_t index) {
  if (!snap.servers) return std::nullopt;
  std::optional<std::string> out;
  for (const Server& s : *snap.servers)
    for (const ServerGpu& g : s.gpus)
      if (g.index == index) out = out ? *out + " + " + describe_server(s) : describe_server(s);
  return out;
}

std::vector<Change> WatchModel::apply(Report report, int64_t t) {
  std::vector<Change> out;
  if (ticks_ == 0) {
    started_unix_ms_ = t;
    for (const Finding& f : report.findings) baseline_keys_.insert(finding_key(f));
    Change c;
    c.time_unix_ms = t;
    c.kind = ChangeKind::kStarted;
    c.severity = report.verdict;
    c.text =
        "watching " + count_of(report.snapshot.gpus.size(), "GPU", "GPUs") + ", " +
        (report.snapshot.servers ? count_of(report.snapshot.servers->size(), "server", "servers")
                                 : std::string("servers unknown")) +
        "; verdict " + verdict_word(report) + " with " +
        count_of(report.findings.size(), "finding", "findings");
    out.push_back(c);
    track_servers(NodeSnapshot{}, report.snapshot, t, out);  // who is busy from the start
  } else {
    out = diff_findings(report_.findings, report.findings, t);
    for (Change& c : out) {
      // A GPU that stopped answering lists no processes: its server is the
      // one the last tick saw there.
      attribute(c, c.kind == ChangeKind::kFindingCleared ? report_.snapshot : report.snapshot);
      attribute(c, report_.snapshot);
    }
    track_servers(report_.snapshot, report.snapshot, t, out);
  }
  track_gpus(report.snapshot);
  report_ = std::move(report);
  ++ticks_;
  return out;
}

void WatchModel::note(const std::vector<Change>& changes) {
  for (const Change& c : changes) {
    recent_.push_back(c);
    if (recent_.size() > kMaxRecentChanges) recent_.pop_front();
  }
}

bool WatchModel::is_new(const Finding& f) const { return !baseline_keys_.count(finding_key(f)); }

void WatchModel::track_gpus(const NodeSnapshot& snap) {
  for (const GpuState& g : snap.gpus) {
    GpuTrack& t = tracks_[g.index];
    const bool answered = g.status == GpuStatus::kOk;
    t.util_pct.push(answered ? mean_util(g) : std::nullopt);
    std::optional<double> mem;
    if (answered && g.memory_used_bytes && g.memory_total_bytes && *g.memory_total_bytes > 0)
      mem = 100.0 * static_cast<double>(*g.memory_used_bytes) / *g.memory_total_bytes;
    t.memory_pct.push(mem);
    t.power_w.push(answered ? g.power_draw_w : std::nullopt);
    std::optional<double> temp;
    if (answered && g.temperature_c) temp = *g.temperature_c;
    t.temp_c.push(temp);
  }
  // A GPU gone from the list (the count dropped) keeps no history.
  for (auto it = tracks_.begin(); it != tracks_.end();)
    it = gpu_at(snap, it->first) ? std::next(it) : tracks_.erase(it);
}

void WatchModel::track_servers(const NodeSnapshot& prev, const NodeSnapshot& now, int64_t t,
                               std::vector<Change>& out) {
  std::map<std::string, const Server*> before, after;
  if (prev.servers)
    for (const Server& s : *prev.servers) before[s.id] = &s;
  if (now.servers)
    for (const Server& s : *now.servers) after[s.id] = &s;
  // A null server list (the process query failed) says nothing about servers.
  if (prev.servers && now.servers) {
    for (const auto& [id, s] : before)
      if (!after.count(id)) {
        out.push_back(server_change(ChangeKind::kServerGone, Severity::kWarning, *s,
                                    "server's processes left the GPUs", t));
        servers_.erase(id);
      }
    for (const auto& [id, s] : after)
      if (!before.count(id))
        out.push_back(
            server_change(ChangeKind::kServerNew, Severity::kInfo, *s, "server on the GPUs", t));
  }
  for (const auto& [id, s] : after) {
    ServerTrack& st = servers_[id];
    const std::optional<double> u = server_util(now, *s);
    if (!u) continue;  // unknown: neither busy nor idle
    if (*u > 0) {
      st.was_busy = true;
      st.idle_ticks = 0;
      if (st.said_idle) {
        st.said_idle = false;
        out.push_back(server_change(ChangeKind::kServerBusy, Severity::kInfo, *s,
                                    "server uses its GPUs again", t));
      }
      continue;
    }
    if (++st.idle_ticks >= kIdleTicks && st.was_busy && !st.said_idle) {
      st.said_idle = true;
      out.push_back(server_change(ChangeKind::kServerIdle, Severity::kWarning, *s,
                                  "server stopped using its GPUs: 0% on all of them for " +
                                      std::to_string(st.idle_ticks) + " ticks",
                                  t));
    }
  }
}

}  // namespace gt
