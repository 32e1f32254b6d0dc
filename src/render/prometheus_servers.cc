// Per-server series: what holds the GPUs, in the shape an operator alerts
// on ("an idle server holding GPUs for an hour"). One set per server of the
// report (model/server.h), labelled by its id and kind; what is unknown is
// left out, never written as 0.
#include "render/prometheus_servers.h"

#include "model/snapshot.h"
#include "util/index_list.h"

namespace gt {
namespace {

void label(MetricLabels& l, const char* key, const std::optional<std::string>& v) {
  if (v && !v->empty()) l.emplace_back(key, *v);
}

/// Idle over the window on every GPU it holds; null when any is not known.
std::optional<bool> server_idle(const NodeSnapshot& s, const Server& sv) {
  std::optional<bool> idle;
  for (const ServerGpu& g : sv.gpus) {
    const GpuState* gs = gpu_by_index(s, g.index);
    std::optional<bool> i = gs ? idle_over_window(*gs) : std::nullopt;
    if (!i) return std::nullopt;
    idle = idle.value_or(true) && *i;
  }
  return idle;
}

}  // namespace

void add_server_metrics(const NodeSnapshot& s, MetricSet& set) {
  if (!s.servers) return;
  for (const Server& sv : *s.servers) {
    MetricLabels l = {{"server", sv.id}, {"kind", sv.kind}};
    label(l, "Hostname", s.hostname);
    MetricLabels info = l;
    label(info, "model", sv.model);
    label(info, "port",
          sv.port ? std::optional<std::string>(std::to_string(*sv.port)) : std::nullopt);
    std::vector<uint32_t> gpus;
    for (const ServerGpu& g : sv.gpus) gpus.push_back(g.index);
    label(info, "gpus", format_index_list(gpus));
    label(info, "owner",
          sv.owner_kind ? std::optional<std::string>(owner_kind_name(*sv.owner_kind) +
                                                     (sv.owner_name ? ":" + *sv.owner_name : ""))
                        : std::nullopt);
    label(info, "restart_policy", sv.restart_policy);
    set.add("gpu_triage_server_info", info, 1);
    for (const ServerGpu& g : sv.gpus)
      if (g.memory_bytes) {
        MetricLabels m = l;
        m.emplace_back("gpu", std::to_string(g.index));
        set.add("gpu_triage_server_memory_bytes", m, static_cast<double>(*g.memory_bytes));
      }
    set.add("gpu_triage_server_processes", l, static_cast<double>(sv.members.size()));
    if (std::optional<bool> idle = server_idle(s, sv))
      set.add("gpu_triage_server_idle", l, *idle ? 1 : 0);
    if (sv.start_time_unix_s)
      set.add("gpu_triage_server_start_time_seconds", l,
              static_cast<double>(*sv.start_time_unix_s));
    set.add("gpu_triage_server_auto_started", l, sv.auto_started ? 1 : 0);
    if (sv.restart_policy)
      set.add("gpu_triage_server_restarts_when_stopped", l, sv.restarts_when_signalled ? 1 : 0);
    set.add("gpu_triage_server_launcher_exited", l, sv.launcher_exited ? 1 : 0);
  }
}

}  // namespace gt
