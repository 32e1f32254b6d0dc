#include "render/incident_render.h"

#include <sstream>

#include "render/text_wrap.h"
#include "util/time_format.h"

namespace gt {
namespace {

std::string stamp(const std::optional<int64_t>& t) {
  return t ? format_utc(*t, "%Y-%m-%d %H:%M:%S") : std::string(19, ' ');
}

/// `text` after a 21-column stamp, wrapped to `width` (continuations
/// indented under the text).
std::string wrapped(const std::string& lead, const std::string& text, int width) {
  return wrap_words(lead, text, static_cast<size_t>(width), lead.size());
}

}  // namespace

void render_incident_section(const std::optional<Incident>& in, bool wide, int width,
                             std::ostream& out) {
  if (!in || (in->timeline.empty() && in->unread.empty())) return;
  out << "what happened (UTC)\n";
  const int w = wide ? 1 << 20 : width;
  for (const IncidentLine& l : in->timeline)
    out << wrapped("  " + stamp(l.time_unix_s) + "  ", l.what + " [" + l.source + "]", w);
  for (const std::string& u : in->unread) out << wrapped("  not read: ", u, w);
}

}  // namespace gt
