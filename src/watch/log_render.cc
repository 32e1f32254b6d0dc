#include "watch/log_render.h"

#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/terminal_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

std::string time_text(int64_t unix_ms) { return format_utc(unix_ms / 1000); }

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void render_change_line(const Change& c, std::ostream& out) {
  out << time_text(c.time_unix_ms) << ' ' << change_kind_name(c.kind) << ' '
      << severity_name(c.severity);
  if (!c.id.empty()) out << ' ' << for_terminal(c.id);
  if (c.gpu_index) out << " GPU " << *c.gpu_index;
  if (c.pci_bus_id) out << ' ' << for_terminal(*c.pci_bus_id);
  if (c.server) out << " [" << for_terminal(*c.server) << ']';
  if (c.path) out << ' ' << for_terminal(*c.path);
  out << ": " << for_terminal(c.text) << '\n';
}

void render_change_json(const Change& c, std::ostream& out) {
  nlohmann::json j;
  j["time"] = time_text(c.time_unix_ms);
  j["change"] = change_kind_name(c.kind);
  j["severity"] = severity_name(c.severity);
  j["id"] = c.id.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.id);
  j["gpu"] = or_null(c.gpu_index);
  j["pci_bus_id"] = or_null(c.pci_bus_id);
  j["server"] = or_null(c.server);
  j["path"] = or_null(c.path);
  j["text"] = c.text;
  // Invalid UTF-8 (a file name, a log line) is replaced, never a throw.
  out << json_text(j) << '\n';
}

}  // namespace gt
