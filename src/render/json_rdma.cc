#include "render/json_rdma.h"

#include "render/json_read.h"
#include "render/json_util.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;
using json_util::opt;

J port_json(const RdmaPort& p) {
  return {{"port", p.port},
          {"state_code", opt(p.state_code)},
          {"state", opt(p.state)},
          {"phys_state_code", opt(p.phys_state_code)},
          {"phys_state", opt(p.phys_state)},
          {"rate_gbps", opt(p.rate_gbps)},
          {"rate", opt(p.rate)},
          {"link_layer", opt(p.link_layer)},
          {"netdev", opt(p.netdev)},
          {"netdev_admin_up", opt(p.netdev_admin_up)},
          {"netdev_operstate", opt(p.netdev_operstate)}};
}

J device_json(const RdmaDevice& d) {
  J ports = J::array();
  for (const RdmaPort& p : d.ports) ports.push_back(port_json(p));
  return {{"name", d.name},
          {"pci_bus_id", opt(d.pci_bus_id)},
          {"pci_path", opt(d.pci_path)},
          {"numa_node", opt(d.numa_node)},
          {"board_id", opt(d.board_id)},
          {"fw_ver", opt(d.fw_ver)},
          {"ports", ports},
          {"error", opt(d.error)}};
}

}  // namespace

J rdma_json(const std::optional<RdmaState>& r) {
  if (!r) return nullptr;
  J devices = J::array();
  for (const RdmaDevice& d : r->devices) devices.push_back(device_json(d));
  J nics = J::array();
  for (const GpuNic& g : r->gpu_nics) {
    J each = J::array();
    for (const GpuNic::ToNic& t : g.to_each)
      each.push_back({{"nic", t.nic}, {"level", opt(t.level)}});
    nics.push_back({{"gpu_pci_bus_id", g.gpu_bus_id},
                    {"nic", opt(g.nic)},
                    {"level", opt(g.level)},
                    {"to_each", each}});
  }
  return {{"devices", devices},
          {"peer_memory_module", opt(r->peer_memory_module)},
          {"open_kernel_module", opt(r->open_kernel_module)},
          {"gpu_nics", nics}};
}

namespace json_read {
namespace {

RdmaPort port_of(const J& j, const std::string& path) {
  Obj o(j, path);
  RdmaPort p;
  o.get("port", p.port);
  o.get("state_code", p.state_code);
  o.get("state", p.state);
  o.get("phys_state_code", p.phys_state_code);
  o.get("phys_state", p.phys_state);
  o.get("rate_gbps", p.rate_gbps);
  o.get("rate", p.rate);
  o.get("link_layer", p.link_layer);
  o.get("netdev", p.netdev);
  o.get("netdev_admin_up", p.netdev_admin_up);
  o.get("netdev_operstate", p.netdev_operstate);
  return p;
}

RdmaDevice device_of(const J& j, const std::string& path) {
  Obj o(j, path);
  RdmaDevice d;
  o.get("name", d.name);
  o.get("pci_bus_id", d.pci_bus_id);
  o.get("pci_path", d.pci_path);
  o.get("numa_node", d.numa_node);
  o.get("board_id", d.board_id);
  o.get("fw_ver", d.fw_ver);
  if (const J* p = o.find("ports")) read_each(*p, o.at("ports"), d.ports, port_of);
  o.get("error", d.error);
  return d;
}

GpuNic::ToNic to_nic_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuNic::ToNic t;
  o.get("nic", t.nic);
  o.get("level", t.level);
  return t;
}

GpuNic gpu_nic_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuNic g;
  o.get("gpu_pci_bus_id", g.gpu_bus_id);
  o.get("nic", g.nic);
  o.get("level", g.level);
  if (const J* t = o.find("to_each")) read_each(*t, o.at("to_each"), g.to_each, to_nic_of);
  return g;
}

}  // namespace

RdmaState rdma_of(const J& j, const std::string& path) {
  Obj o(j, path);
  RdmaState r;
  if (const J* d = o.find("devices")) read_each(*d, o.at("devices"), r.devices, device_of);
  o.get("peer_memory_module", r.peer_memory_module);
  o.get("open_kernel_module", r.open_kernel_module);
  if (const J* g = o.find("gpu_nics")) read_each(*g, o.at("gpu_nics"), r.gpu_nics, gpu_nic_of);
  return r;
}

}  // namespace json_read
}  // namespace gt
