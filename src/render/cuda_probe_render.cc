#include "render/cuda_probe_render.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/cuda_errors.h"
#include "model/snapshot.h"
#include "report/json_util.h"
#include "util/byte_units.h"
#include "util/json_text.h"
#include "util/terminal_text.h"

namespace gt {
namespace {

using json_util::J;
using json_util::opt;
constexpr size_t kColumns = 80;

/// Cut to 80 columns (the text is ASCII once escaped).
std::string fit(std::string s) {
  if (s.size() > kColumns) s = s.substr(0, kColumns - 3) + "...";
  return s;
}

std::optional<double> step_ms(const CudaGpuProbe& p, const char* name) {
  for (const CudaStep& s : p.steps)
    if (s.name == name) return s.ms;
  return std::nullopt;
}

std::string passed_words(const CudaGpuProbe& p) {
  std::string s = "ok";
  if (std::optional<double> ms = step_ms(p, "cuCtxCreate"))
    s += *ms < 10 ? fmt::format(" ctx {:.1f}ms", *ms) : fmt::format(" ctx {:.0f}ms", *ms);
  if (p.tested_bytes) s += ", " + format_bytes(*p.tested_bytes) + " read back";
  if (p.kernel_threads) s += ", kernel ok";
  if (p.h2d_gb_per_s && p.d2h_gb_per_s)
    s += fmt::format(", {:.1f}/{:.1f} GB/s", *p.h2d_gb_per_s, *p.d2h_gb_per_s);
  else if (!p.tested_bytes && p.detail)
    s += " (" + for_terminal(*p.detail) + ")";
  return s;
}

std::string outcome_words(const CudaGpuProbe& p) {
  switch (p.outcome) {
    case CudaOutcome::kPassed:
      return passed_words(p);
    case CudaOutcome::kStuck:
      return fmt::format("STUCK in {} ({:.1f} s, killed)", for_terminal(p.stuck_in.value_or("?")),
                         p.elapsed_ms / 1000);
    case CudaOutcome::kLate:
      return fmt::format("LATE in {} ({:.1f} s, killed; not stuck)",
                         for_terminal(p.stuck_in.value_or("?")), p.elapsed_ms / 1000);
    case CudaOutcome::kFailed:
      if (p.mismatch)
        return fmt::format("FAILED {}: {} word{} differ{}", p.failed_step.value_or("read-back"),
                           p.mismatch->wrong_words, p.mismatch->wrong_words == 1 ? "" : "s",
                           p.mismatch->wrong_words == 1 ? "s" : "");
      return fmt::format(
          "FAILED at {}: {} {}", for_terminal(p.failed_step.value_or("?")),
          p.error_code.value_or(-1),
          for_terminal(p.error_name.value_or(cuda_error_name(p.error_code.value_or(-1)))));
    case CudaOutcome::kCrashed:
      return "CRASHED: " + for_terminal(p.detail.value_or(""));
    case CudaOutcome::kNotLoaded:
      return "not run: " + for_terminal(p.detail.value_or("libcuda not loaded"));
    case CudaOutcome::kSkipped:
      return "skipped: " + for_terminal(p.detail.value_or("")) +
             (p.detail && p.detail->starts_with("held") ? " (--include-busy)" : "");
  }
  return "";
}

std::string header(const CudaProbeReport& r) {
  std::string s = "CUDA";
  if (r.driver_api_version)
    s += fmt::format(" {}.{} (driver API)", *r.driver_api_version / 1000,
                     *r.driver_api_version % 1000 / 10);
  if (r.init_error)
    s += fmt::format(", cuInit {} {}", *r.init_error,
                     for_terminal(r.init_error_name.value_or(cuda_error_name(*r.init_error))));
  else if (r.device_count)
    s += fmt::format(", {} device{}", *r.device_count, *r.device_count == 1 ? "" : "s");
  return s;
}

J finding_json(const Finding& f) {
  return {{"id", f.id},
          {"severity", severity_name(f.severity)},
          {"gpu", opt(f.subject.gpu_index)},
          {"pci_bus_id", opt(f.subject.pci_bus_id)},
          {"title", f.title},
          {"evidence", f.evidence},
          {"action", f.action},
          {"commands", f.commands}};
}

J gpu_json(const CudaGpuProbe& p) {
  J steps = J::array();
  for (const CudaStep& s : p.steps) steps.push_back({{"step", s.name}, {"ms", opt(s.ms)}});
  J mismatch = nullptr;
  if (p.mismatch)
    mismatch = {{"what", p.mismatch->what},
                {"offset_bytes", p.mismatch->offset_bytes},
                {"expected", p.mismatch->expected},
                {"got", p.mismatch->got},
                {"wrong_words", p.mismatch->wrong_words}};
  return {{"index", opt(p.nvml_index)},
          {"uuid", opt(p.uuid)},
          {"pci_bus_id", p.pci_bus_id},
          {"cuda_ordinal", opt(p.cuda_ordinal)},
          {"cuda_name", opt(p.cuda_name)},
          {"outcome", cuda_outcome_name(p.outcome)},
          {"steps", steps},
          {"stuck_in", opt(p.stuck_in)},
          {"failed_step", opt(p.failed_step)},
          {"error_code", opt(p.error_code)},
          {"error_name", opt(p.error_name)},
          {"error_meaning", p.error_code ? J(cuda_error_meaning(*p.error_code)) : J(nullptr)},
          {"signal", opt(p.signal)},
          {"detail", opt(p.detail)},
          {"mismatch", mismatch},
          {"total_bytes", opt(p.total_bytes)},
          {"free_bytes", opt(p.free_bytes)},
          {"tested_bytes", opt(p.tested_bytes)},
          {"kernel_threads", opt(p.kernel_threads)},
          {"h2d_gb_per_s", opt(p.h2d_gb_per_s)},
          {"d2h_gb_per_s", opt(p.d2h_gb_per_s)},
          {"link",
           {{"max_gen", opt(p.link_max_gen)},
            {"max_width", opt(p.link_max_width)},
            {"current_gen", opt(p.link_gen)},
            {"current_width", opt(p.link_width)},
            {"gb_per_s", opt(p.link_gb_per_s)}}},
          {"elapsed_ms", p.elapsed_ms}};
}

J peers_json(const CudaPeerGroup& g) {
  J pairs = J::array();
  for (const CudaPeerPair& p : g.pairs)
    pairs.push_back({{"from", opt(p.from_index)},
                     {"to", opt(p.to_index)},
                     {"from_bus_id", p.from_bus_id},
                     {"to_bus_id", p.to_bus_id},
                     {"can_access", opt(p.can_access)}});
  return {{"who", g.who}, {"gpus", g.gpu_indices}, {"pairs", pairs}, {"error", opt(g.error)}};
}

}  // namespace

/// What was tested, and only that: the probed GPUs, and the held ones as
/// their running CUDA processes prove them (never counted as passed).
std::string tested_line(const CudaProbeReport& r) {
  size_t probed = 0, passed = 0, held = 0;
  for (const CudaGpuProbe& p : r.gpus) {
    if (p.outcome == CudaOutcome::kSkipped) {
      held += p.detail && p.detail->starts_with("held");
      continue;
    }
    ++probed;
    passed += p.outcome == CudaOutcome::kPassed;
  }
  std::string s = fmt::format("tested: {} of {} probed, {} passed", probed, r.gpus.size(), passed);
  if (held > 0) s += fmt::format("; {} held by running processes, not probed", held);
  return s;
}

std::string cuda_gpu_line(const CudaGpuProbe& p) {
  std::string who = p.nvml_index ? fmt::format("GPU {:<2}", *p.nvml_index) : "GPU ? ";
  return fit(fmt::format("{} {:<12} {}", who, for_terminal(normalize_pci_bus_id(p.pci_bus_id)),
                         outcome_words(p)));
}

std::string render_cuda_text(const CudaProbeReport& r, const std::vector<Finding>& findings,
                             int exit_code) {
  // Nothing to probe: one line says so, and why.
  if (r.gpus.empty() && r.init_error == 100 && findings.size() == 1 &&
      findings[0].severity == Severity::kInfo)
    return for_terminal(findings[0].title + ": " + findings[0].evidence) + "\n";
  std::string out = fit(header(r)) + "\n";
  out += "libcuda: " + for_terminal(r.library_file.value_or(r.library)) +
         (r.library_version ? " (" + *r.library_version + ")" : "") + "\n";
  if (r.load_error) out += fit("  " + for_terminal(*r.load_error)) + "\n";
  if (r.nvml_error)
    out += fit("NVML unusable, no GPU selected: " + for_terminal(*r.nvml_error)) + "\n";
  for (const CudaGpuProbe& p : r.gpus) out += cuda_gpu_line(p) + "\n";
  if (!r.gpus.empty()) out += fit(tested_line(r)) + "\n";
  for (const CudaPeerGroup& g : r.peer_groups)
    if (g.error && !r.init_error)
      out += fit("peers of " + for_terminal(g.who) + ": " + for_terminal(*g.error)) + "\n";
  for (const Finding& f : findings) {
    out += fmt::format("\n{}: {} [{}]\n", severity_name(f.severity), for_terminal(f.title), f.id);
    if (!f.evidence.empty()) out += "  " + for_terminal(f.evidence) + "\n";
    if (!f.action.empty()) out += "  fix: " + for_terminal(f.action) + "\n";
    for (const std::string& c : f.commands) out += "  $ " + for_terminal(c) + "\n";
  }
  out += fmt::format("\nexit {} ({:.2f} s, deadline {:.1f} s per GPU)\n", exit_code,
                     r.elapsed_ms / 1000, r.timeout_ms / 1000.0);
  return out;
}

std::string render_cuda_json(const CudaProbeReport& r, const std::vector<Finding>& findings,
                             int exit_code) {
  J gpus = J::array(), groups = J::array(), found = J::array();
  for (const CudaGpuProbe& p : r.gpus) gpus.push_back(gpu_json(p));
  for (const CudaPeerGroup& g : r.peer_groups) groups.push_back(peers_json(g));
  for (const Finding& f : findings) found.push_back(finding_json(f));
  J j = {{"schema", "gpu-triage/cuda"},
         {"schema_version", 1},
         {"exit_code", exit_code},
         {"library", r.library},
         {"library_file", opt(r.library_file)},
         {"library_version", opt(r.library_version)},
         {"module_version", opt(r.module_version)},
         {"nvml_error", opt(r.nvml_error)},
         {"driver_api_version", opt(r.driver_api_version)},
         {"init_error", opt(r.init_error)},
         {"init_error_name", opt(r.init_error_name)},
         {"device_count", opt(r.device_count)},
         {"load_error", opt(r.load_error)},
         {"node_error", opt(r.node_error)},
         {"timeout_ms", r.timeout_ms},
         {"elapsed_ms", r.elapsed_ms},
         {"gpus", gpus},
         {"peer_groups", groups},
         {"findings", found}};
  return json_text(j, 2) + "\n";
}

}  // namespace gt
