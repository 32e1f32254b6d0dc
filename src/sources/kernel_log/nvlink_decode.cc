// Xid 74 and 144-150 decoding; the tables are the catalogue's.
#include "sources/kernel_log/nvlink_decode.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sources/kernel_log/line_format.h"

namespace gt::klog {
namespace {

// ---- shared --------------------------------------------------------------------

/// "0x1f" / "1f" -> 0x1f when it fits 32 bits.
std::optional<uint32_t> hex_word(string_view s) {
  s = trim(s);
  if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
  return to_num<uint32_t>(s, 16);
}

/// "4,5,16": the set bits of w, lowest first.
std::string bit_list(uint32_t w) {
  std::string out;
  for (int b = 0; b < 32; ++b)
    if (w & (1u << b)) out += (out.empty() ? "" : ",") + std::to_string(b);
  return out;
}

std::vector<string_view> split(string_view s, char sep) {
  std::vector<string_view> out;
  for (;;) {
    size_t at = s.find(sep);
    out.push_back(trim(s.substr(0, at)));
    if (at == kNpos) return out;
    s.remove_prefix(at + 1);
  }
}

// ---- Xid 74 --------------------------------------------------------------------

/// NVIDIA's reading of one set bit of REG0/REG2/REG3/REG4 (WORKFLOW_NVLINK_ERR).
struct BitReading {
  int reg;
  std::vector<int> bits;
  const char* reading;
};

const std::vector<BitReading>& xid74_readings() {
  static const std::vector<BitReading> k = {
      {0, {0, 23, 30}, "ignorable"},
      {0, {1, 20}, "sympathetic"},
      {0, {4, 5}, "ecc-parity"},
      {0, {8, 9, 12, 16, 17, 24, 28}, "possible-hardware"},
      {0, {21, 22}, "signal-integrity"},
      {0, {27, 29}, "bug-if-repeated"},
      {2, {0, 1, 2, 6}, "ecc-parity"},
      {2, {13}, "unexpected-bug"},
      {2, {16, 19}, "field-diags-if-repeated"},
      {2, {17, 18}, "bug-if-repeated"},
      {3, {16, 17}, "sympathetic"},
      {3, {18}, "fabric-reset-required"},
      {4, {18, 19, 21, 22, 24, 25, 27, 28}, "ecc-parity"},
      {4, {20, 23, 26, 29}, "ecc-threshold"},
  };
  return k;
}

/// REGn is word n+1 for the registers valid for bit analysis (0, 2, 3, 4).
std::optional<int> reg_of_word(size_t word) {
  if (word == 1) return 0;
  if (word >= 3 && word <= 5) return static_cast<int>(word) - 1;
  return std::nullopt;
}

const char* single_bit_reading(size_t word, int bit) {
  std::optional<int> reg = reg_of_word(word);
  if (!reg) return "unlisted-bit";
  for (const BitReading& r : xid74_readings())
    for (int b : r.bits)
      if (r.reg == *reg && b == bit) return r.reading;
  return "unlisted-bit";
}

void decode_words74(const std::vector<uint32_t>& w, Decoded& out) {
  int set = 0;
  size_t one_word = 0;
  int one_bit = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (!w[i]) continue;
    std::optional<int> reg = reg_of_word(i);
    out.emplace_back(
        reg ? "reg" + std::to_string(*reg) + "_bits" : "word" + std::to_string(i) + "_bits",
        bit_list(w[i]));
    for (int b = 0; b < 32; ++b)
      if (w[i] & (1u << b)) ++set, one_word = i, one_bit = b;
  }
  if (set == 1) out.emplace_back("reading", single_bit_reading(one_word, one_bit));
}

}  // namespace

Decoded decode_xid74(string_view detail) {
  Decoded out;
  size_t at = detail.find("on link ");
  if (at == kNpos) return out;
  size_t i = at + 8, start = i;
  while (i < detail.size() && is_digit(detail[i])) ++i;
  if (i == start) return out;
  out.emplace_back("link", std::string(detail.substr(start, i - start)));
  size_t open = detail.find('(', i), close = detail.find(')', i);
  if (open == kNpos || close == kNpos || close < open) return out;
  if (!trim(detail.substr(i, open - i)).empty()) return out;
  std::vector<uint32_t> words;
  for (string_view s : split(detail.substr(open + 1, close - open - 1), ',')) {
    std::optional<uint32_t> v = hex_word(s);
    if (!v) return out;
    words.push_back(*v);
  }
  if (words.size() == 7) decode_words74(words, out);
  return out;
}

namespace {

// ---- Xids 144-150 -------------------------------------------------------------

/// One row of the "XID 144-150 Decode" table: statuses by class.
struct StatusClass {
  const char* name;
  std::vector<uint32_t> statuses;
};

struct Nvlink5Row {
  int xid;
  const char* unit;
  uint32_t v1;               // intrinfo low 10 bits, drivers before R575
  std::vector<uint32_t> v2;  // intrinfo low 7 bits, R580+
  std::vector<StatusClass> classes;
};

const std::vector<Nvlink5Row>& nvlink5_table() {
  const uint32_t kHi = 0x80000000;
  static const std::vector<Nvlink5Row> k = {
      {144, "SAW_MVB", 0x021, {0x01}, {{"fatal", {0x2, 0x10}}, {"ignore", {0x1, 0x4, 0x8, 0x20}}}},
      {145, "RLW_CTRL", 0x062, {0x03}, {{"ignore", {kHi}}}},
      {145,
       "RLW_REMAP",
       0x082,
       {0x04},
       {{"fatal", {0x40, 0x80}},
        {"xid154-eval", {0x1, 0x2, 0x4, 0x8, 0x10, 0x20}},
        {"ignore", {0x100, 0x200, kHi}}}},
      {145, "RLW_RSPCOL", 0x0a2, {0x05}, {{"fatal", {0x2}}, {"ignore", {0x1, kHi}}}},
      {145, "RLW_RXPIPE", 0x0c2, {0x06}, {{"nonfatal", {0x1, 0x2, 0x4}}, {"ignore", {0x8, kHi}}}},
      {145,
       "RLW_SRC_TRACK",
       0x0e2,
       {0x07},
       {{"fatal", {0x1, 0x10, 0x20}}, {"xid154-eval", {0x4, 0x8}}, {"ignore", {0x2, kHi}}}},
      {145,
       "RLW_TAGSTATE",
       0x102,
       {0x08},
       {{"fatal", {0x2, 0x20000, 0x100000}}, {"ignore", {0x1, 0x10000, kHi}}}},
      {146, "TLW_CTRL", 0x123, {0x09}, {{"fatal", {0x4}}, {"ignore", {0x1, 0x2, kHi}}}},
      {146, "TLW_RX", 0x143, {0x0a, 0x0b}, {{"fatal", {0x4}}, {"ignore", {0x1, 0x2, kHi}}}},
      {146, "TLW_TX", 0x163, {0x0c, 0x0d}, {{"fatal", {0x4}}, {"ignore", {0x1, 0x2, kHi}}}},
      {147, "TREX", 0x184, {0x0e}, {{"not-in-production", {0x1}}}},
      {148, "NVLPW_CTRL", 0x005, {0x0f}, {}},
      {149, "NETIR_INT", 0x006, {0x18}, {{"link-fatal", {0x0}}}},
      {149, "NETIR_BER_EVENT", 0x226, {0x13}, {{"nonfatal", {0x0, 0x1, 0x2, 0x3}}}},
      {149,
       "NETIR_MFDE_EVENT",
       0x246,
       {0x14},
       {{"fatal", {0x1, 0x4, 0x5, 0x7}}, {"ignore", {0x3}}}},
      {149, "NETIR_LINK_EVT", 0x1c6, {0x11}, {{"link-fatal", {0x0}}}},
      {150, "MSE_WATCHDOG", 0x000, {0x00}, {{"fatal", {0x0}}}},
  };
  return k;
}

/// The printed unit names the row's unit: equal, or one is the other plus
/// "_..." / "/..." (a unit/subunit, or "NETIR" for NETIR_INT).
bool same_unit(string_view printed, string_view row) {
  string_view a = printed.size() <= row.size() ? printed : row;
  string_view b = printed.size() <= row.size() ? row : printed;
  return starts_with(b, a) && (a.size() == b.size() || b[a.size()] == '_' || b[a.size()] == '/');
}

/// NETIR_LINK_EVT sub-codes (link down reasons), the catalogue's "investigate" column.
const char* link_down_reading(uint32_t sub) {
  switch (sub) {
    case 0:
      return "sympathetic";
    case 1:
      return "report-if-more-than-once-a-day";
    case 2:
    case 4:
    case 10:
      return "link-signal-integrity";
    case 15:
    case 17:
    case 22:
      return "software-user";
    case 16:
    case 18:
      return "software-user-or-link-signal-integrity";
    case 21:
    case 32:
    case 33:
    case 34:
    case 35:
    case 36:
    case 37:
      return "peer-device";
    case 38:
      return "ignore";
    case 40:
      return "check-host";
    case 42:
    case 43:
      return "link-signal-integrity-cables";
    default:
      return nullptr;
  }
}

void decode_table(int code, string_view unit, uint32_t intrinfo, uint32_t status, Decoded& out) {
  for (const Nvlink5Row& row : nvlink5_table()) {
    if (row.xid != code || !same_unit(unit, row.unit)) continue;
    bool v1 = (intrinfo & 0x3ff) == row.v1;
    bool v2 = false;
    for (uint32_t v : row.v2) v2 = v2 || (intrinfo & 0x7f) == v;
    if (!v1 && !v2) continue;
    out.emplace_back("table_unit", row.unit);
    out.emplace_back("layout", v1 ? "V1" : "V2");
    for (const StatusClass& c : row.classes)
      for (uint32_t s : c.statuses)
        if (s == status) out.emplace_back("status_class", c.name);
    if (std::string_view(row.unit) == "NETIR_LINK_EVT")
      if (const char* r = link_down_reading((intrinfo >> 20) & 0x3f))
        out.emplace_back("subcode_reading", r);
    return;
  }
}

std::vector<string_view> words_of(string_view s) {
  std::vector<string_view> out;
  for (string_view w : split(s, ' '))
    if (!w.empty()) out.push_back(w);
  return out;
}

}  // namespace

Decoded decode_nvlink5(int code, string_view detail) {
  size_t open = detail.find('('), close = detail.find(')');
  if (open == kNpos || close == kNpos || close < open) return {};
  std::vector<string_view> head = words_of(detail.substr(0, open));
  std::vector<string_view> hex = words_of(detail.substr(open + 1, close - open - 1));
  if (head.size() != 6 || head[4] != "Link" || hex.size() < 2 || hex.size() > 6) return {};
  if (head[1] != "Fatal" && head[1] != "Nonfatal") return {};
  if (head[2] != "XC0" && head[2] != "XC1") return {};
  if (head[3] != "i0" && head[3] != "i1") return {};
  std::optional<int> link = to_num<int>(head[5]);
  std::optional<uint32_t> intrinfo = hex_word(hex[0]), status = hex_word(hex[1]);
  if (!link || *link < -1 || !intrinfo || !status) return {};
  Decoded out = {
      {"unit", std::string(head[0])},        {"severity", std::string(head[1])},
      {"containment", std::string(head[2])}, {"injected", std::string(head[3])},
      {"link", std::to_string(*link)},       {"intrinfo", std::string(hex[0])},
      {"error_status", std::string(hex[1])}, {"subcode", std::to_string((*intrinfo >> 20) & 0x3f)}};
  decode_table(code, head[0], *intrinfo, *status, out);
  return out;
}

}  // namespace gt::klog
