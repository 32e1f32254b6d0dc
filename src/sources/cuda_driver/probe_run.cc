#include "sources/cuda_driver/probe_run.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "model/server.h"

namespace gt {
namespace {

/// The words of one protocol line ("ok cuInit 12.5" -> 3 words).
std::vector<std::string> words(const std::string& line, size_t max_words) {
  std::vector<std::string> w;
  size_t i = 0;
  while (i < line.size() && w.size() + 1 < max_words) {
    size_t e = line.find(' ', i);
    if (e == std::string::npos) break;
    w.push_back(line.substr(i, e - i));
    i = e + 1;
  }
  if (i < line.size()) w.push_back(line.substr(i));
  return w;
}

std::optional<long long> to_int(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

std::optional<double> to_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

/// What every child says alike: the step it is in, a failure, the library.
struct Progress {
  std::vector<CudaStep> steps;
  std::optional<std::string> in_step;  ///< announced, not finished
  std::optional<std::string> failed;
  std::optional<int> code;
  std::optional<std::string> code_name;
  std::optional<std::string> load_error;
  std::optional<std::string> library_file;
  std::optional<int> version;
  std::vector<std::string> other;  ///< lines no mode knows (the child's stderr)
  bool ended = false;
};

/// Consumes the common lines; returns false for a line the caller reads.
bool common_line(Progress& p, const std::vector<std::string>& w, const std::string& line) {
  const std::string& k = w[0];
  if (k == "step" && w.size() == 2) {
    p.in_step = w[1];
  } else if (k == "ok" && w.size() == 3) {
    p.steps.push_back({w[1], to_double(w[2])});
    p.in_step.reset();
  } else if (k == "fail" && w.size() >= 3) {
    p.failed = w[1];
    if (std::optional<long long> c = to_int(w[2])) p.code = static_cast<int>(*c);
    if (w.size() == 4) p.code_name = w[3];
    p.steps.push_back({w[1], std::nullopt});
    p.in_step.reset();
  } else if (k == "load") {
    p.load_error = line.substr(5);
  } else if (k == "lib" && w.size() >= 2) {
    p.library_file = line.substr(4);
  } else if (k == "version" && w.size() == 2) {
    if (std::optional<long long> v = to_int(w[1])) p.version = static_cast<int>(*v);
  } else if (k == "end") {
    p.ended = true;
  } else if (k == "tick") {
    // a call inside a long step returned: progress, not a hang
  } else {
    return false;
  }
  return true;
}

std::string signal_words(int sig) {
  const char* d = ::strsignal(sig);
  return fmt::format("signal {} ({})", sig, d != nullptr ? d : "unknown");
}

/// How a child that did not report to its end ended, in words; null when it
/// reported to the end.
std::optional<std::string> abnormal_end(const ChildOutcome& o, const Progress& p) {
  switch (o.end) {
    case ChildEnd::kNotStarted:
      return "the probe's child could not be started: " + o.detail;
    case ChildEnd::kKilled:
    case ChildEnd::kKilledNoExit:
      return std::nullopt;  // stuck: said by the caller with the step
    case ChildEnd::kSignalled:
      return "the probe's child was killed by " + signal_words(o.signal.value_or(0)) +
             (p.in_step ? " in " + *p.in_step : "");
    case ChildEnd::kExited:
      if (p.ended) return std::nullopt;
      return fmt::format("the probe's child exited ({}) without reporting{}",
                         o.exit_status.value_or(-1), p.in_step ? " in " + *p.in_step : "");
  }
  return std::nullopt;
}

Progress read_progress(
    const ChildOutcome& o,
    const std::function<bool(const std::vector<std::string>&, const std::string&)>& own) {
  Progress p;
  for (const std::string& line : o.lines) {
    std::vector<std::string> w = words(line, 6);
    if (w.empty()) continue;
    if (common_line(p, w, line)) continue;
    if (!own(w, line)) p.other.push_back(line);
  }
  return p;
}

bool stuck(const ChildOutcome& o) {
  return o.end == ChildEnd::kKilled || o.end == ChildEnd::kKilledNoExit;
}

/// Killed at its deadline while its calls still returned: its last line
/// (a step announced, a call inside a step returned) came less than half
/// the deadline before the kill. A call that had not returned for half the
/// deadline or more is stuck.
bool late(const ChildOutcome& o) {
  return o.end == ChildEnd::kKilled && o.deadline.count() > 0 && o.last_line_ms > 0 &&
         o.elapsed_ms - o.last_line_ms < o.deadline.count() / 2.0;
}

std::string stuck_words(const ChildOutcome& o, const std::string& step) {
  return fmt::format("stuck in {} after {:.1f} s{}", step, o.elapsed_ms / 1000,
                     o.end == ChildEnd::kKilledNoExit
                         ? "; killed, but it did not exit (asleep in the driver)"
                         : "; killed");
}

bool gpu_figure(CudaGpuProbe& g, const std::vector<std::string>& w, const std::string& line) {
  if (w[0] == "mismatch" && w.size() == 6) {
    CudaMismatch m;
    m.what = w[1];
    m.offset_bytes = static_cast<uint64_t>(to_int(w[2]).value_or(0));
    m.expected = static_cast<uint32_t>(to_int(w[3]).value_or(0));
    m.got = static_cast<uint32_t>(to_int(w[4]).value_or(0));
    m.wrong_words = static_cast<uint64_t>(to_int(w[5]).value_or(0));
    g.mismatch = m;
    return true;
  }
  if (w[0] == "skip") {
    g.detail = line.substr(5);
    return true;
  }
  if (w[0] != "fig" || w.size() < 3) return false;
  const std::string& key = w[1];
  const std::string value = line.substr(5 + key.size());
  std::optional<long long> n = to_int(value);
  if (key == "name")
    g.cuda_name = value;
  else if (key == "ordinal" && n)
    g.cuda_ordinal = static_cast<int>(*n);
  else if (key == "total_bytes" && n)
    g.total_bytes = static_cast<uint64_t>(*n);
  else if (key == "free_bytes" && n)
    g.free_bytes = static_cast<uint64_t>(*n);
  else if (key == "tested_bytes" && n)
    g.tested_bytes = static_cast<uint64_t>(*n);
  else if (key == "kernel_threads" && n)
    g.kernel_threads = static_cast<uint64_t>(*n);
  else if (key == "h2d_gb_per_s")
    g.h2d_gb_per_s = to_double(value);
  else if (key == "d2h_gb_per_s")
    g.d2h_gb_per_s = to_double(value);
  else
    return false;
  return true;
}

bool is_busy(const GpuState& g, std::string& why) {
  if (!g.processes) {
    why =
        "not probed: NVML could not list its processes, so it may be in use (--include-busy "
        "probes it)";
    return true;
  }
  if (g.processes->empty()) return false;
  const GpuProcess& p = g.processes->front();
  why = fmt::format("held by pid {}{}", p.pid,
                    g.processes->size() > 1 ? fmt::format(" and {} more", g.processes->size() - 1)
                                            : std::string());
  return true;
}

std::vector<const GpuState*> selected(const NodeSnapshot& s,
                                      const std::optional<std::vector<uint32_t>>& sel) {
  std::vector<const GpuState*> out;
  for (const GpuState& g : s.gpus)
    if (!sel || std::find(sel->begin(), sel->end(), g.index) != sel->end()) out.push_back(&g);
  return out;
}

std::string visible_devices(const std::vector<const GpuState*>& gpus) {
  std::string v;
  for (const GpuState* g : gpus)
    if (g->uuid) v += (v.empty() ? "" : ",") + *g->uuid;
  return v;
}

ChildJob job(const CudaProbeOptions& o, std::vector<std::string> mode,
             const std::vector<const GpuState*>& gpus) {
  ChildJob j;
  j.argv = {o.self_exe, "__cuda-child", "--lib", o.library};
  j.argv.insert(j.argv.end(), mode.begin(), mode.end());
  // Only the GPUs this child may touch; none known by UUID: the selection's
  // bus ids still pick the device, but CUDA sees every GPU.
  std::string visible = visible_devices(gpus);
  if (!visible.empty() && std::all_of(gpus.begin(), gpus.end(), [](auto* g) { return g->uuid; }))
    j.env.push_back("CUDA_VISIBLE_DEVICES=" + visible);
  j.env.push_back("CUDA_DEVICE_ORDER=PCI_BUS_ID");
  j.deadline = o.timeout;
  return j;
}

void fill_link(CudaGpuProbe& p, const GpuState& g) {
  p.link_max_gen = g.pcie.max_gen;
  p.link_max_width = g.pcie.max_width;
  p.link_gen = g.pcie.current_gen;
  p.link_width = g.pcie.current_width;
  if (g.pcie.max_gen && g.pcie.max_width)
    p.link_gb_per_s = pcie_gb_per_s(*g.pcie.max_gen, *g.pcie.max_width);
}

std::string server_label(const Server& s) {
  std::string who = s.kind.empty() ? s.id : s.kind;
  if (s.root_pid) who += fmt::format(" (pid {}", *s.root_pid);
  if (s.tensor_parallel)
    who += fmt::format("{}TP={}", s.root_pid ? ", " : " (", *s.tensor_parallel);
  if (s.root_pid || s.tensor_parallel) who += ")";
  return who;
}

/// Each server's GPUs within the selection (two or more), then the
/// selection itself when no server group is the same set.
std::vector<CudaPeerGroup> peer_groups(const NodeSnapshot& s,
                                       const std::vector<const GpuState*>& sel) {
  std::vector<CudaPeerGroup> out;
  std::vector<uint32_t> all;
  for (const GpuState* g : sel)
    if (g->pci_bus_id) all.push_back(g->index);
  if (s.servers)
    for (const Server& srv : *s.servers) {
      CudaPeerGroup grp;
      grp.who = server_label(srv);
      for (const ServerGpu& sg : srv.gpus)
        if (std::find(all.begin(), all.end(), sg.index) != all.end())
          grp.gpu_indices.push_back(sg.index);
      if (grp.gpu_indices.size() >= 2) out.push_back(grp);
    }
  bool same = std::any_of(out.begin(), out.end(),
                          [&](const CudaPeerGroup& g) { return g.gpu_indices == all; });
  if (all.size() >= 2 && !same) out.push_back({"the selection", all, {}, std::nullopt});
  return out;
}

}  // namespace

std::optional<std::string> library_version_from_name(const std::string& file) {
  size_t at = file.rfind(".so.");
  if (at == std::string::npos) return std::nullopt;
  std::string v = file.substr(at + 4);
  if (v.find('.') == std::string::npos) return std::nullopt;
  if (!std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
    return std::nullopt;
  return v;
}

void read_gpu_child(CudaGpuProbe& g, const ChildOutcome& o) {
  Progress p = read_progress(o, [&](const std::vector<std::string>& w, const std::string& l) {
    return gpu_figure(g, w, l);
  });
  g.steps = p.steps;
  g.elapsed_ms = o.elapsed_ms;
  if (o.signal && o.end != ChildEnd::kExited) g.signal = o.signal;
  if (p.load_error) {
    g.outcome = CudaOutcome::kNotLoaded;
    g.detail = p.load_error;
  } else if (stuck(o) && late(o)) {
    g.outcome = CudaOutcome::kLate;
    g.stuck_in = p.in_step.value_or("starting the child");
    g.detail = fmt::format(
        "not finished within its {:.1f} s deadline, in {}; its calls kept returning (the last "
        "{:.1f} s before the deadline); killed",
        o.deadline.count() / 1000.0, *g.stuck_in, (o.elapsed_ms - o.last_line_ms) / 1000);
  } else if (stuck(o)) {
    g.outcome = CudaOutcome::kStuck;
    g.stuck_in = p.in_step.value_or("starting the child");
    g.detail = stuck_words(o, *g.stuck_in);
  } else if (std::optional<std::string> bad = abnormal_end(o, p)) {
    g.outcome = CudaOutcome::kCrashed;
    g.detail = *bad;
  } else if (p.failed) {
    g.outcome = CudaOutcome::kFailed;
    g.failed_step = p.failed;
    g.error_code = p.code;
    g.error_name = p.code_name;
  } else if (g.mismatch) {
    g.outcome = CudaOutcome::kFailed;
    g.failed_step = g.mismatch->what == "kernel" ? "kernel values" : "read-back";
  } else if (g.detail) {
    g.outcome = CudaOutcome::kSkipped;
  } else {
    g.outcome = CudaOutcome::kPassed;
  }
  if (!p.other.empty() && g.outcome != CudaOutcome::kPassed)
    g.detail =
        g.detail.value_or("") + (g.detail ? "; " : "") + "the child said: " + p.other.front();
}

void read_node_child(CudaProbeReport& r, const ChildOutcome& o) {
  Progress p = read_progress(o, [&](const std::vector<std::string>& w, const std::string&) {
    if (w[0] == "count" && w.size() == 2) {
      if (std::optional<long long> n = to_int(w[1])) r.device_count = static_cast<int>(*n);
      return true;
    }
    return false;
  });
  r.library_file = p.library_file;
  if (p.library_file) r.library_version = library_version_from_name(*p.library_file);
  r.driver_api_version = p.version;
  r.load_error = p.load_error;
  if (p.failed == "cuInit") {
    r.init_error = p.code;
    r.init_error_name = p.code_name;
  }
  if (stuck(o))
    r.node_error = stuck_words(o, p.in_step.value_or("starting the child"));
  else if (std::optional<std::string> bad = abnormal_end(o, p))
    r.node_error = *bad;
}

void read_peer_child(CudaPeerGroup& group, const ChildOutcome& o) {
  Progress p = read_progress(o, [&](const std::vector<std::string>& w, const std::string&) {
    if (w[0] != "peer" || w.size() != 4) return false;
    for (CudaPeerPair& pair : group.pairs)
      if (pair.from_bus_id == w[1] && pair.to_bus_id == w[2]) pair.can_access = w[3] == "1";
    return true;
  });
  if (p.load_error)
    group.error = *p.load_error;
  else if (stuck(o))
    group.error = stuck_words(o, p.in_step.value_or("starting the child"));
  else if (std::optional<std::string> bad = abnormal_end(o, p))
    group.error = *bad;
  else if (p.failed)
    group.error =
        fmt::format("{} returned {} {}", *p.failed, p.code.value_or(-1), p.code_name.value_or(""));
}

CudaProbeReport probe_cuda(const NodeSnapshot& snap,
                           const std::optional<std::vector<uint32_t>>& selection,
                           const CudaProbeOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  CudaProbeReport r;
  r.library = o.library;
  r.timeout_ms = static_cast<uint64_t>(o.timeout.count());
  // The module's own release (sysfs), which NVML reports when it answers
  // and which is all there is when NVML is refused.
  r.module_version = snap.kernel_module_version ? snap.kernel_module_version : snap.driver_version;
  if (!snap.nvml.initialized) r.nvml_error = snap.nvml.error_message.value_or("NVML unusable");
  std::vector<const GpuState*> sel = selected(snap, selection);
  std::vector<ChildJob> jobs = {job(o, {"--node"}, sel)};
  std::vector<size_t> gpu_job;  // r.gpus[i]'s job, or npos
  for (const GpuState* g : sel) {
    CudaGpuProbe p;
    p.nvml_index = g->index;
    p.uuid = g->uuid;
    p.pci_bus_id = g->pci_bus_id.value_or("");
    fill_link(p, *g);
    std::string why;
    if (!g->pci_bus_id) {
      p.detail = "NVML did not say its PCI bus id (the probe finds a GPU by it)";
      gpu_job.push_back(std::string::npos);
    } else if (!o.include_busy && is_busy(*g, why)) {
      p.detail = why;
      gpu_job.push_back(std::string::npos);
    } else {
      gpu_job.push_back(jobs.size());
      jobs.push_back(job(o,
                         {"--bus", *g->pci_bus_id, "--memory", std::to_string(o.memory_bytes),
                          "--margin", std::to_string(o.margin_bytes)},
                         {g}));
    }
    r.gpus.push_back(p);
  }
  r.peer_groups = peer_groups(snap, sel);
  const size_t first_peer_job = jobs.size();
  for (CudaPeerGroup& grp : r.peer_groups) {
    std::vector<const GpuState*> members;
    std::string buses;
    for (uint32_t i : grp.gpu_indices) {
      const GpuState* g = gpu_by_index(snap, i);
      members.push_back(g);
      buses += (buses.empty() ? "" : ",") + *g->pci_bus_id;
    }
    for (const GpuState* a : members)
      for (const GpuState* b : members)
        if (a != b) grp.pairs.push_back({*a->pci_bus_id, *b->pci_bus_id, a->index, b->index, {}});
    jobs.push_back(job(o, {"--peers", buses}, members));
  }
  std::vector<ChildOutcome> out = run_children(jobs);
  read_node_child(r, out[0]);
  for (size_t i = 0; i < r.gpus.size(); ++i)
    if (gpu_job[i] != std::string::npos) read_gpu_child(r.gpus[i], out[gpu_job[i]]);
  for (size_t i = 0; i < r.peer_groups.size(); ++i)
    read_peer_child(r.peer_groups[i], out[first_peer_job + i]);
  r.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gt
