#include "watch/events.h"

#include "model/xid_catalog.h"
#include "watch/watch_model.h"

namespace gt {
namespace {

std::string event_words(const KernelLogEvent& e) {
  const XidEntry* x = nullptr;
  std::string head;
  if (e.kind == EventKind::kXid && e.code) {
    x = find_xid(*e.code);
    head = "Xid " + std::to_string(*e.code);
  } else if (e.kind == EventKind::kSxid && e.code) {
    x = find_sxid(*e.code);
    head = "SXid " + std::to_string(*e.code);
  } else {
    x = &fallen_off_bus_entry();
    head = "GPU has fallen off the bus";
  }
  std::string out = head;
  if (x && *x->description)
    out += " (" + std::string(x->description) + ")";
  else if (e.code)
    out += " (not in the catalogue)";
  if (!e.detail.empty()) out += ": " + e.detail;
  if (e.process_name) out += " [" + *e.process_name + "]";
  return out;
}

std::string event_id(const KernelLogEvent& e) {
  if (e.kind == EventKind::kXid && e.code) return "gpu.xid." + std::to_string(*e.code);
  if (e.kind == EventKind::kSxid && e.code) return "gpu.sxid." + std::to_string(*e.code);
  return "gpu.fallen_off_bus_logged";
}

Severity event_severity(const KernelLogEvent& e) {
  const XidEntry* x = nullptr;
  if (e.kind == EventKind::kXid && e.code) x = find_xid(*e.code);
  if (e.kind == EventKind::kSxid && e.code) x = find_sxid(*e.code);
  if (e.kind == EventKind::kFallenOffBus) x = &fallen_off_bus_entry();
  return x ? x->severity : Severity::kWarning;  // unknown code: worth a look, not a verdict
}

}  // namespace

std::optional<uint32_t> gpu_index_by_bus(const NodeSnapshot& snap, const std::string& bus) {
  const std::string want = normalize_pci_bus_id(bus);
  for (const GpuState& g : snap.gpus)
    if (g.pci_bus_id && normalize_pci_bus_id(*g.pci_bus_id) == want) return g.index;
  return std::nullopt;
}

Change kernel_event_change(const KernelLogEvent& e, const NodeSnapshot& snap, int64_t now) {
  Change c;
  c.time_unix_ms = now;
  c.kind = ChangeKind::kEvent;
  c.severity = event_severity(e);
  c.id = event_id(e);
  c.pci_bus_id = e.pci_bus_id;
  if (e.pci_bus_id) c.gpu_index = gpu_index_by_bus(snap, *e.pci_bus_id);
  c.text = event_words(e) + " (kernel log)";
  attribute(c, snap);
  return c;
}

void attribute(Change& c, const NodeSnapshot& snap) {
  if (c.server && snap.servers) {
    for (const Server& s : *snap.servers)
      if (s.id == *c.server) c.server = describe_server(s);
    return;
  }
  if (!c.server && c.gpu_index) c.server = server_on_gpu(snap, *c.gpu_index);
  if (!c.pci_bus_id && c.gpu_index)
    for (const GpuState& g : snap.gpus)
      if (g.index == *c.gpu_index && g.pci_bus_id)
        c.pci_bus_id = normalize_pci_bus_id(*g.pci_bus_id);
}

}  // namespace gt
