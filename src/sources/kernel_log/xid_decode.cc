// Xid payload decoding: 13, 31 and 154 here, the NVLink ones in
// nvlink_decode.cc. Every decoder matches tokens, not exact spacing, and
// returns nothing for a form it does not know.
#include "sources/kernel_log/xid_decode.h"

#include "model/xid_catalog.h"
#include "sources/kernel_log/line_format.h"
#include "sources/kernel_log/nvlink_decode.h"

namespace gt::klog {
namespace {

/// The word after the whole word `key` ("intr" in "..., intr 10000000."),
/// without a trailing ',' or '.'; empty when absent.
string_view word_after(string_view s, string_view key) {
  for (size_t at = s.find(key); at != kNpos; at = s.find(key, at + 1)) {
    size_t end = at + key.size();
    if ((at > 0 && s[at - 1] != ' ') || end >= s.size() || s[end] != ' ') continue;
    string_view rest = s.substr(end + 1);
    string_view w = rest.substr(0, rest.find(' '));
    while (!w.empty() && (w.back() == ',' || w.back() == '.')) w.remove_suffix(1);
    return w;
  }
  return {};
}

void add_if(Decoded& out, const char* name, string_view value) {
  if (!value.empty()) out.emplace_back(name, std::string(value));
}

// ---- Xid 13 ---------------------------------------------------------------------

/// "(GPC 8, TPC 5, SM 0)" -> gpc, tpc, sm; false unless all are "NAME digits".
bool decode_location(string_view inner, Decoded& out) {
  Decoded loc;
  while (!inner.empty()) {
    size_t comma = inner.find(',');
    string_view part = trim(inner.substr(0, comma));
    inner = comma == kNpos ? string_view() : inner.substr(comma + 1);
    size_t sp = part.find(' ');
    if (sp == kNpos) return false;
    string_view name = part.substr(0, sp), value = trim(part.substr(sp + 1));
    if (name != "GPC" && name != "TPC" && name != "SM") return false;
    if (!to_num<unsigned>(value)) return false;
    std::string key(name);
    for (char& c : key) c = static_cast<char>(c - 'A' + 'a');
    loc.emplace_back(key, std::string(value));
  }
  if (loc.empty()) return false;
  out.insert(out.end(), loc.begin(), loc.end());
  return true;
}

/// "ESR 0x<reg>=0x<val>" or "ChID c, Class k, Offset o, Data d" after "Graphics Exception: ".
bool decode_exception_words(string_view rest, Decoded& out) {
  if (starts_with(rest, "ESR ")) {
    string_view v = trim(rest.substr(4));
    size_t eq = v.find('=');
    if (eq == kNpos || eq == 0 || eq + 1 >= v.size()) return false;
    out.emplace_back("esr_register", std::string(v.substr(0, eq)));
    out.emplace_back("esr_value", std::string(trim(v.substr(eq + 1))));
    return true;
  }
  if (!starts_with(rest, "ChID ")) return false;
  add_if(out, "channel", word_after(rest, "ChID"));
  add_if(out, "class", word_after(rest, "Class"));
  add_if(out, "offset", word_after(rest, "Offset"));
  add_if(out, "data", word_after(rest, "Data"));
  return true;
}

Decoded decode_xid13(string_view d) {
  if (!starts_with(d, "Graphics ")) return {};
  Decoded out = {{"engine", "Graphics"}};
  size_t on = d.find(" on (");
  if (on != kNpos) {
    size_t close = d.find(')', on);
    if (close == kNpos || close + 1 >= d.size() || d[close + 1] != ':') return {};
    out.emplace_back("exception", std::string(d.substr(9, on - 9)));
    if (!decode_location(d.substr(on + 5, close - on - 5), out)) return {};
    add_if(out, "error", trim(d.substr(close + 2)));
    return out;
  }
  size_t colon = d.find(": ");
  if (colon == kNpos) return {};
  out.emplace_back("exception", std::string(d.substr(9, colon - 9)));
  if (!decode_exception_words(trim(d.substr(colon + 2)), out)) return {};
  return out;
}

// ---- Xid 31 ---------------------------------------------------------------------

bool is_gpc_token(string_view t) {
  return t.size() > 3 && starts_with(t, "GPC") && to_num<unsigned>(t.substr(3)).has_value();
}

/// "ENGINE GRAPHICS [GPC2] GPCCLIENT_PROP_0 faulted" -> engine, [gpc], client.
void decode_engine(string_view d, Decoded& out) {
  size_t at = d.find("ENGINE ");
  size_t end = at == kNpos ? kNpos : d.find(" faulted", at);
  if (end == kNpos) return;
  std::vector<string_view> t;
  string_view s = d.substr(at + 7, end - at - 7);
  for (size_t sp; !s.empty(); s = sp == kNpos ? string_view() : s.substr(sp + 1)) {
    sp = s.find(' ');
    if (sp != 0) t.push_back(s.substr(0, sp));
  }
  bool gpc = t.size() == 3 && is_gpc_token(t[1]);
  if (t.size() != 2 && !gpc) return;
  out.emplace_back("engine", std::string(t[0]));
  if (gpc) out.emplace_back("gpc", std::string(t[1].substr(3)));
  out.emplace_back("client", std::string(t.back()));
}

/// The first word starting with `prefix` ("FAULT_PDE", "ACCESS_TYPE_VIRT_READ").
string_view word_starting(string_view d, string_view prefix) {
  for (size_t at = d.find(prefix); at != kNpos; at = d.find(prefix, at + 1)) {
    if (at > 0 && d[at - 1] != ' ') continue;
    string_view w = d.substr(at, d.find(' ', at) - at);
    while (!w.empty() && (w.back() == ',' || w.back() == '.')) w.remove_suffix(1);
    return w;
  }
  return {};
}

Decoded decode_xid31(string_view d) {
  Decoded out;
  add_if(out, "channel", starts_with(d, "Ch ") ? word_after(d, "Ch") : word_after(d, "channel"));
  add_if(out, "engmask", word_after(d, "engmask"));
  add_if(out, "intr", word_after(d, "intr"));
  decode_engine(d, out);
  add_if(out, "address", word_after(d, "@"));
  add_if(out, "fault_type", word_starting(d, "FAULT_"));
  add_if(out, "access_type", word_starting(d, "ACCESS_TYPE_"));
  return out;
}

// ---- Xid 154 --------------------------------------------------------------------

/// "0x1 (GPU Reset Required)" at the start of s -> number and text.
bool action_at(string_view s, string_view& num, string_view& text) {
  size_t sp = s.find(" (");
  size_t close = sp == kNpos ? kNpos : s.find(')', sp);
  if (close == kNpos || !starts_with(s, "0x")) return false;
  num = s.substr(0, sp);
  text = s.substr(sp + 2, close - sp - 2);
  return to_num<unsigned>(num.substr(2), 16).has_value() && !text.empty();
}

Decoded decode_xid154(string_view d) {
  constexpr string_view kFrom = "GPU recovery action changed from ";
  size_t at = d.find(kFrom);
  if (at == kNpos) return {};
  string_view rest = d.substr(at + kFrom.size());
  string_view from, from_text, to, to_text;
  if (!action_at(rest, from, from_text)) return {};
  size_t t = rest.find(") to ");
  if (t == kNpos || !action_at(rest.substr(t + 5), to, to_text)) return {};
  return {{"from", std::string(from)},
          {"from_name", std::string(from_text)},
          {"action", std::string(to)},
          {"action_name", std::string(to_text)}};
}

}  // namespace

Decoded decode_xid(int code, string_view detail) {
  detail = trim(detail);
  switch (xid_facts(code).payload) {
    case XidPayload::kGraphicsException:
      return decode_xid13(detail);
    case XidPayload::kMmuFault:
      return decode_xid31(detail);
    case XidPayload::kNvlink:
      return decode_xid74(detail);
    case XidPayload::kNvlink5:
      return decode_nvlink5(code, detail);
    case XidPayload::kRecoveryAction:
      return decode_xid154(detail);
    case XidPayload::kNone:
      break;
  }
  return {};
}

}  // namespace gt::klog
