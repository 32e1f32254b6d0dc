#include "free/gpu_selection.h"

#include <algorithm>
#include <cctype>

#include "free/free_plan.h"

namespace gt {
namespace {

std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool is_uuid(const std::string& w) {
  const std::string l = ascii_lower(w.substr(0, 4));
  return l == "gpu-" || l == "mig-";
}

/// "dddd:bb:dd.f" with an optional domain of up to 8 hex digits.
bool is_bus_id(const std::string& w) {
  if (w.find(':') == std::string::npos || w.find('.') == std::string::npos || w.size() > 16)
    return false;
  return std::all_of(w.begin(), w.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
  });
}

}  // namespace

Result<std::optional<GpuSelector>> parse_gpu_selector(const std::string& text) {
  if (text == "all") return std::optional<GpuSelector>();
  GpuSelector sel;
  std::string numeric;
  size_t i = 0;
  while (i <= text.size()) {
    size_t comma = text.find(',', i);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(i, comma - i);
    if (is_uuid(part) && part.size() > 4 && part.size() <= 96)
      sel.ids.push_back(part);
    else if (is_bus_id(part))
      sel.ids.push_back(part);
    else
      numeric += (numeric.empty() ? "" : ",") + part;
    i = comma + 1;
  }
  if (!numeric.empty() || sel.ids.empty()) {
    Result<std::optional<std::vector<uint32_t>>> n = parse_gpu_list(numeric);
    if (!n && sel.ids.empty()) return n.error();  // it names the index and the range
    if (!n) {
      std::string quoted = text.size() > 64 ? text.substr(0, 64) + "..." : text;
      return Error{ErrorKind::kMalformed,
                   "invalid --gpus '" + quoted +
                       "': use 'all', indices 0-1023 like 0,2,4-7, UUIDs (GPU-...) or PCI bus "
                       "ids (0000:19:00.0), as nvidia-smi -i takes them"};
    }
    if (*n) sel.indices = **n;
  }
  return std::optional<GpuSelector>(sel);
}

Result<std::optional<std::vector<uint32_t>>> resolve_gpu_selector(
    const std::optional<GpuSelector>& selector, const NodeSnapshot& snap) {
  if (!selector) return std::optional<std::vector<uint32_t>>();
  std::vector<uint32_t> out = selector->indices;
  for (const std::string& id : selector->ids) {
    const bool uuid = is_uuid(id);
    const GpuState* hit = nullptr;
    for (const GpuState& g : snap.gpus) {
      bool same =
          uuid ? g.uuid && ascii_lower(*g.uuid) == ascii_lower(id)
               : g.pci_bus_id && normalize_pci_bus_id(*g.pci_bus_id) == normalize_pci_bus_id(id);
      if (same) hit = &g;
    }
    if (!hit)
      return Error{ErrorKind::kNotFound, "--gpus " + id.substr(0, 96) +
                                             ": this node has no GPU with that " +
                                             (uuid ? "UUID" : "PCI bus id")};
    out.push_back(hit->index);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::optional<std::vector<uint32_t>>(out);
}

}  // namespace gt
