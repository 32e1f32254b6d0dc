// The CUDA release a job's stack was built for (sources/cuda/runtime_build.h)
// against the CUDA version the driver supports (NVML's
// cuda_driver_version), with NVIDIA's published driver per release
// (model/cuda_driver_table.h):
//   - a newer major than the driver's: the runtime refuses to start
//     (cudaErrorInsufficientDriver 35; torch: "The NVIDIA driver on your
//     system is too old (found version 12040)"): critical;
//   - the same major, a newer minor: it runs under minor-version
//     compatibility with a limited feature set; PTX of the newer release
//     does not JIT (222 CUDA_ERROR_UNSUPPORTED_PTX_VERSION): a warning.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "checks/checks.h"
#include "checks/cuda_node_parts.h"
#include "model/cuda_driver_table.h"
#include "util/shell_word.h"

namespace gt {
namespace {

/// PyTorch's wheel indexes for the driver's release ("cu124"), when it
/// publishes one for it.
std::optional<std::string> torch_index_for(CudaRelease r) {
  static const std::set<std::pair<int, int>> kIndexes = {{11, 8}, {12, 1}, {12, 4}, {12, 6},
                                                         {12, 8}, {12, 9}, {13, 0}};
  if (!kIndexes.count({r.major, r.minor})) return std::nullopt;
  return fmt::format("cu{}{}", r.major, r.minor);
}

std::string needs_text(CudaRelease built) {
  std::optional<std::string_view> d = toolkit_driver_for(built);
  return d ? fmt::format("needs driver >= {}", *d)
           : fmt::format("needs a driver supporting CUDA {}.{}", built.major, built.minor);
}

/// The interpreter to reinstall torch with: --python's; null for a running
/// server (its interpreter is not read).
std::optional<std::string> python_of(const CudaRuntimeBuild& b) {
  constexpr std::string_view kPython = "--python ";
  if (b.pid || !b.who.starts_with(kPython)) return std::nullopt;
  return b.who.substr(kPython.size());
}

void one_build(const NodeSnapshot& s, const CudaRuntimeBuild& b, CudaRelease driver,
               std::vector<Finding>& out) {
  std::optional<CudaRelease> built = parse_cuda_release(b.cuda_version.value_or(""));
  if (!built || *built <= driver) return;
  Finding f = node_finding("cuda.runtime_too_new");
  const bool major = built->major > driver.major;
  if (!major) f.severity = Severity::kWarning;
  if (b.pid) f.subject.pid = b.pid;
  f.title = fmt::format("{}: {} built for CUDA {} {}; this driver supports CUDA {}.{}", b.who,
                        b.source.value_or("its stack"), *b.cuda_version, needs_text(*built),
                        driver.major, driver.minor);
  f.evidence = fmt::format("driver {} (NVML: CUDA {}); {}", s.driver_version.value_or("?"),
                           s.cuda_driver_version.value_or("?"), b.source.value_or("?"));
  std::optional<std::string_view> compat = minor_compat_driver_for(built->major);
  if (major) {
    f.action = fmt::format(
        "CUDA will refuse to start (cudaErrorInsufficientDriver 35: \"the NVIDIA driver on "
        "your system is too old\"): install a driver for CUDA {}.{} or a stack built for CUDA "
        "{}.x.",
        built->major, built->minor, driver.major);
  } else {
    f.action = fmt::format(
        "It runs only under minor-version compatibility (CUDA {}.x on a driver >= {}): "
        "features of CUDA {} are missing and its PTX does not JIT (222 "
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION); upgrade the driver or use a stack built for "
        "CUDA {}.{}.",
        built->major, compat.value_or("?"), *b.cuda_version, driver.major, driver.minor);
  }
  std::optional<std::string> python = python_of(b);
  std::optional<std::string> index = torch_index_for(driver);
  if (b.source && b.source->starts_with("torch") && python && index)
    f.commands.push_back(
        fmt::format("{} -m pip install --force-reinstall torch --index-url "
                    "https://download.pytorch.org/whl/{}   # a torch built for this driver's CUDA",
                    shell_word(*python), *index));
  f.commands.push_back("nvidia-smi   # after the driver upgrade: the CUDA it supports");
  out.push_back(f);
}

/// --python PATH asks whether that environment's CUDA stack runs here: a
/// stack whose CUDA release could not be read (version.py unreadable, a
/// FIFO, a link loop, no line that parses, nothing found) or a CPU-only
/// torch answers nothing of the kind, and is said, never left as OK.
void unproved_python(const CudaRuntimeBuild& b, std::vector<Finding>& out) {
  if (!python_of(b) || b.cuda_version) return;
  const bool cpu_only = std::any_of(b.notes.begin(), b.notes.end(), [](const std::string& n) {
    return n.starts_with("torch is a CPU-only build");
  });
  Finding f = node_finding(cpu_only ? "cuda.runtime_cpu_only" : "cuda.runtime_unknown");
  f.severity = Severity::kWarning;
  f.title = cpu_only ? fmt::format("{}: torch is a CPU-only build; it will not use the GPUs", b.who)
                     : fmt::format(
                           "{}: the CUDA release its stack was built for could not be "
                           "read; whether it runs on this driver is unknown",
                           b.who);
  f.evidence = b.notes.empty() ? std::string("no CUDA runtime found among its files")
                               : fmt::format("{}", fmt::join(b.notes, "; "));
  f.action = cpu_only ? "install a torch built for CUDA into that environment"
                      : "check that environment's torch (its torch/version.py) by hand";
  f.commands.push_back(
      fmt::format("{} -c 'import torch; print(torch.__version__, torch.version.cuda)'",
                  shell_word(*python_of(b))));
  out.push_back(f);
}

}  // namespace

void check_cuda_runtime_builds(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.cuda) return;
  for (const CudaRuntimeBuild& b : s.cuda->runtimes) unproved_python(b, out);
  std::optional<CudaRelease> driver = parse_cuda_release(s.cuda_driver_version.value_or(""));
  if (!driver) return;
  for (const CudaRuntimeBuild& b : s.cuda->runtimes) one_build(s, b, *driver, out);
}

}  // namespace gt
