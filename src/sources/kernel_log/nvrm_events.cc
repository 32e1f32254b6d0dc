// NVIDIA messages in kernel-log lines (formats: shared/reference/xid-catalog.md,
// "Kernel log line formats"; real samples: tests/fixtures/real/kernel-log).
//
// We never anchor on the prefix (line_format.cc): the message is found by searching for
// "NVRM:" / "SXid (" and only then is the prefix parsed for a timestamp, so the
// hot path over a big log is three substring searches per line. Messages:
//   NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', name=<unknown>, An unc...
//   NVRM: Xid (0000:01:00): 3, C 00000005 ...        (legacy: no "PCI:")
//   NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.   (no pid)
//   NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x...)
//   NVRM: Xid (PCI:0000:3b:00 GPU-I:05): 94, pid=..., ...   (MIG: the GPU instance)
//   nvidia-nvswitch1: SXid (PCI:0000:02:00.0): 22013, Non-fatal, Link 00 ...
//       followed by "..., Severity 0 Engine ..." and "..., Data {0x...}" lines
//       for the same event (joined to it).
//   NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.       (after Xid 79)
//   NVRM: GPU at 0000:01:00.0 has fallen off the bus.         (legacy)
//   NVRM: The NVIDIA GPU 0000:b3:00.0 / NVRM: (PCI ID: 10de:26b5) installed in
//       this system has / NVRM: fallen off the bus and is not responding ...
//       (570.x, split over indented lines or separate records)
// Xid bus ids usually carry no function ("PCI:DDDD:BB:DD"); SXid ones do; any
// domain, hex digits in either case. The pid is
// "'<unknown>'" (quoted) and the name "<unknown>" when not attributable; names
// are comm (15 chars, may hold spaces). Everything else printed by NVRM (the
// "GPU at PCI:..: GPU-uuid" preamble, GSP RPC tables, rate-limit notices,
// module load lines) is context, not an event, and is not counted as
// unparsed; only lines that look like an Xid/SXid but do not parse are.
#include "sources/kernel_log/nvrm_events.h"

#include <cmath>
#include <cstdlib>

#include "model/xid_catalog.h"
#include "sources/kernel_log/cancellation.h"
#include "sources/kernel_log/line_format.h"
#include "sources/kernel_log/storm.h"
#include "sources/kernel_log/xid_decode.h"

namespace gt::klog {
namespace {

constexpr int kMaxJoins = 32;        // continuation lines per event
constexpr int kMaxPendingLines = 4;  // lines of a split fallen-off message

// ---- messages -----------------------------------------------------------------

// After "<code>": "pid=N, name=X, rest" or "pid='<unknown>', name=<unknown>,
// rest" or just "rest".
void parse_pid_name(string_view tail, KernelLogEvent& ev) {
  tail = trim(tail);
  if (tail.substr(0, 4) == "pid=") {
    size_t comma = tail.find(',');
    string_view v = tail.substr(4, comma == kNpos ? kNpos : comma - 4);
    ev.pid = to_num<uint32_t>(v);
    tail = comma == kNpos ? string_view() : trim(tail.substr(comma + 1));
  }
  if (tail.substr(0, 5) == "name=") {
    size_t end = tail.find(", ");
    string_view name = tail.substr(5, end == kNpos ? kNpos : end - 5);
    if (!name.empty() && name != "<unknown>") ev.process_name = std::string(name);
    tail = end == kNpos ? string_view() : tail.substr(end + 2);
  }
  ev.detail = std::string(trim(tail));
}

// "<marker> (<bus>[ GPU-I:<n>])<anything>: <code>[, tail]" -> bus, GPU
// instance, code, tail.
struct CodedLine {
  std::optional<std::string> bus;
  std::optional<uint32_t> gpu_instance;
  int code = 0;
  string_view tail;
};

// "PCI:0000:3b:00 GPU-I:05" -> the bus text and the MIG GPU instance (the
// driver prints it in decimal; either case accepted).
string_view split_gpu_instance(string_view inside, std::optional<uint32_t>& instance) {
  inside = trim(inside);
  size_t space = inside.find(' ');
  if (space == kNpos) return inside;
  string_view suffix = trim(inside.substr(space + 1));
  if (suffix.size() > 6 && (suffix.substr(0, 6) == "GPU-I:" || suffix.substr(0, 6) == "gpu-i:"))
    instance = to_num<uint32_t>(suffix.substr(6));
  return inside.substr(0, space);
}

std::optional<CodedLine> parse_coded(string_view s) {
  size_t open = s.find('(');
  size_t close = s.find(')', open == kNpos ? 0 : open);
  if (open == kNpos || close == kNpos || open > 6) return std::nullopt;
  CodedLine c;
  c.bus = canonical_bus(split_gpu_instance(s.substr(open + 1, close - open - 1), c.gpu_instance));
  size_t colon = s.find(':', close);
  if (colon == kNpos) return std::nullopt;
  size_t i = colon + 1;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t start = i;
  while (i < s.size() && is_digit(s[i]) && i - start < 9) ++i;
  auto code = to_num<int>(s.substr(start, i - start));
  if (!code || (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != '\r')) return std::nullopt;
  c.code = *code;
  c.tail = i < s.size() ? trim(s.substr(i + 1)) : string_view();
  return c;
}

// Stateful line-by-line parser. Events go through the hook and are folded
// as they come; continuation lines join a new event's line and are swallowed
// for a line folded into an earlier event (memory stays bounded).
class Parser {
 public:
  Parser(LogBoot boot, const EventHook& hook) : boot_(boot), hook_(hook) {}

  void feed(string_view line);
  ParsedKernelLog finish();

 private:
  /// Where continuation lines go: nowhere, the open event's line, or away.
  enum class Open { kNone, kAppend, kSwallow };

  void record(string_view line, string_view prefix_hint);
  void nvrm(string_view body, string_view prefix, string_view line);
  void xid(string_view body, string_view prefix, string_view line);
  void sxid(string_view msg, string_view prefix, string_view line);
  bool sxid_follow_on(const CodedLine& c, string_view line);
  bool continuation(string_view text);
  void start_pending(string_view body, string_view prefix, string_view line);
  void add_to_pending(string_view body, string_view line);
  KernelLogEvent make(EventKind kind, string_view prefix, string_view line) const;
  void commit(KernelLogEvent ev);
  void fold_fallen_off_into_xid79();

  LogBoot boot_;
  const EventHook& hook_;
  StormFolder folder_;
  ParsedKernelLog out_;
  Open open_ = Open::kNone;
  size_t open_event_ = 0;  // the last committed event, when open_ != kNone
  int open_joins_ = 0;
  std::optional<size_t> last_;  // the last committed event (SXid follow-on lines join it)
  bool last_fresh_ = false;     // it was new, not folded into an earlier one
  bool sxid_group_open_ = false;
  std::optional<KernelLogEvent> pending_;  // "The NVIDIA GPU ..." so far
  int pending_lines_ = 0;
  bool pending_open_ = false;  // the last record went into pending_
};

KernelLogEvent Parser::make(EventKind kind, string_view prefix, string_view line) const {
  KernelLogEvent ev;
  ev.kind = kind;
  ev.boot = boot_;
  Stamp st = parse_stamp(prefix);
  ev.monotonic_s = st.mono;
  ev.time_unix_s = st.unix_s;
  ev.time_text = std::move(st.text);
  ev.line = std::string(trim(line));
  return ev;
}

void Parser::commit(KernelLogEvent ev) {
  open_joins_ = 0;
  last_.reset();
  if (hook_ && !hook_(ev)) {
    open_ = Open::kSwallow;
    return;
  }
  auto [index, fresh] = folder_.add(std::move(ev));
  open_event_ = index;
  last_ = index;
  last_fresh_ = fresh;
  open_ = fresh ? Open::kAppend : Open::kSwallow;
  KernelLogEvent& e = folder_.events()[index];
  if (fresh && e.kind == EventKind::kXid && e.code) e.decoded = decode_xid(*e.code, e.detail);
}

/// A line of a form some kernel log writes: a /dev/kmsg record, a dmesg,
/// journalctl or syslog stamp, "kernel:", or the driver's own words.
bool is_log_form(string_view line) {
  if (contains(line, "NVRM") || contains(line, "kernel:") || contains(line, "nvidia")) return true;
  const Stamp st = parse_stamp(line);
  return st.mono.has_value() || st.unix_s.has_value();
}

void Parser::feed(string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (trim(line).empty()) return;
  ++out_.lines;
  if (line[0] == ' ' || line[0] == '\t') {
    if (is_kmsg_dict(line)) return;
    if (continuation(trim(line))) return;
  }
  open_ = Open::kNone;
  pending_open_ = false;
  if (!out_.log_form_seen) out_.log_form_seen = is_log_form(line);
  if (!contains(line, "NVRM") && !contains(line, "Xid") && !contains(line, "fallen off")) return;
  auto k = parse_kmsg_header(line);
  if (!k || !contains(line, "\\x")) return record(line, {});
  // A multi-line kmsg record: first line is the record, the rest continue it.
  std::string header(line.substr(0, k->msg_start));
  std::string msg = unescape_kmsg(line.substr(k->msg_start));
  string_view rest = msg;
  for (bool first = true; !rest.empty(); first = false) {
    size_t nl = rest.find('\n');
    string_view part = rest.substr(0, nl);
    rest = nl == kNpos ? string_view() : rest.substr(nl + 1);
    if (!first && continuation(trim(part))) continue;
    std::string whole = header + std::string(part);
    record(whole, header);
  }
}

void Parser::record(string_view line, string_view prefix_hint) {
  size_t nv = line.find("NVRM:");
  size_t sx = line.find("SXid (");
  if (sx != kNpos && (nv == kNpos || sx < nv)) {
    size_t sw = line.find("nvidia-nvswitch");
    size_t start = sw != kNpos && sw < sx ? sw : sx;
    return sxid(line.substr(sx), prefix_hint.empty() ? line.substr(0, start) : prefix_hint, line);
  }
  if (nv == kNpos) {
    if (contains(line, "Xid (") || contains(line, "Xid(")) ++out_.unparsed_nvidia_lines;
    return;
  }
  string_view prefix = prefix_hint.empty() ? line.substr(0, nv) : prefix_hint;
  nvrm(trim(line.substr(nv + 5)), prefix, line);
}

void Parser::nvrm(string_view body, string_view prefix, string_view line) {
  if (starts_with(body, "Xid")) {
    pending_.reset();
    return xid(body, prefix, line);
  }
  if (pending_ && !starts_with(body, "GPU") && !starts_with(body, "The NVIDIA GPU"))
    return add_to_pending(body, line);
  pending_.reset();
  if (starts_with(body, "The NVIDIA GPU") && !contains(body, "fallen off the bus"))
    return start_pending(body, prefix, line);
  if (!contains(body, "fallen off the bus")) return;
  KernelLogEvent ev = make(EventKind::kFallenOffBus, prefix, line);
  ev.pci_bus_id = find_bus(body);
  ev.detail = std::string(body);
  commit(std::move(ev));
}

void Parser::xid(string_view body, string_view prefix, string_view line) {
  auto c = parse_coded(body.substr(3));
  if (!c) {
    ++out_.unparsed_nvidia_lines;
    return;
  }
  KernelLogEvent ev = make(EventKind::kXid, prefix, line);
  ev.code = c->code;
  ev.pci_bus_id = c->bus;
  ev.gpu_instance_id = c->gpu_instance;
  parse_pid_name(c->tail, ev);
  commit(std::move(ev));
}

// The "Severity ..." / "Data {...}" lines after an SXid header join it (or
// are swallowed with it when the header folded into an earlier event).
bool Parser::sxid_follow_on(const CodedLine& c, string_view line) {
  bool follow_on = starts_with(c.tail, "Severity ") || starts_with(c.tail, "Data {");
  if (!follow_on || !sxid_group_open_ || !last_) return false;
  KernelLogEvent& last = folder_.events()[*last_];
  if (last.kind != EventKind::kSxid || last.code != c.code || last.pci_bus_id != c.bus)
    return false;
  if (last_fresh_) last.line += " | " + std::string(trim(line));
  sxid_group_open_ = !starts_with(c.tail, "Data {");
  open_ = Open::kNone;
  return true;
}

void Parser::sxid(string_view msg, string_view prefix, string_view line) {
  auto c = parse_coded(msg.substr(4));
  if (!c) {
    ++out_.unparsed_nvidia_lines;
    return;
  }
  if (sxid_follow_on(*c, line)) return;
  KernelLogEvent ev = make(EventKind::kSxid, prefix, line);
  ev.code = c->code;
  ev.pci_bus_id = c->bus;
  ev.detail = std::string(c->tail);
  sxid_group_open_ = !starts_with(c->tail, "Data {");
  commit(std::move(ev));
}

void Parser::start_pending(string_view body, string_view prefix, string_view line) {
  KernelLogEvent ev = make(EventKind::kFallenOffBus, prefix, line);
  ev.pci_bus_id = find_bus(body);
  ev.detail = std::string(body);
  pending_ = std::move(ev);
  pending_lines_ = 1;
  pending_open_ = true;
}

void Parser::add_to_pending(string_view body, string_view line) {
  pending_->line += " | " + std::string(trim(line));
  pending_->detail += " " + std::string(body);
  pending_open_ = true;
  if (contains(pending_->detail, "fallen off the bus")) {
    KernelLogEvent ev = std::move(*pending_);
    pending_.reset();
    commit(std::move(ev));
  } else if (++pending_lines_ >= kMaxPendingLines) {
    pending_.reset();
  }
}

bool Parser::continuation(string_view text) {
  if (text.empty() || contains(text, "Xid (")) return false;
  if (pending_ && pending_open_) {
    size_t nv = text.find("NVRM:");
    add_to_pending(nv == kNpos ? text : trim(text.substr(nv + 5)), text);
    return true;
  }
  if (open_ == Open::kNone || open_joins_ >= kMaxJoins) return false;
  if (open_ == Open::kAppend) folder_.events()[open_event_].line += " | " + std::string(text);
  ++open_joins_;
  return true;
}

bool close_in_time(const KernelLogEvent& a, std::optional<int64_t> unix_s,
                   std::optional<double> mono) {
  if (a.time_unix_s && unix_s) return std::llabs(*a.time_unix_s - *unix_s) <= 10;
  if (a.monotonic_s && mono) return std::fabs(*a.monotonic_s - *mono) <= 10;
  return true;
}

/// The Xid 79 event a "fallen off the bus" event repeats: same bus and boot,
/// within 10 s of the Xid's first or last line.
std::optional<size_t> xid79_for(const std::vector<KernelLogEvent>& ev, const KernelLogEvent& f) {
  for (size_t j = 0; j < ev.size(); ++j) {
    const KernelLogEvent& x = ev[j];
    if (x.kind != EventKind::kXid || !x.code || xid_facts(*x.code).cls != XidClass::kGpuGone ||
        x.pci_bus_id != f.pci_bus_id || x.boot != f.boot)
      continue;
    if (close_in_time(f, x.time_unix_s, x.monotonic_s) ||
        (x.count > 1 && close_in_time(f, x.last_time_unix_s, x.last_monotonic_s)))
      return j;
  }
  return std::nullopt;
}

// The driver prints "GPU ...: GPU has fallen off the bus." right after the
// Xid 79 line: one event, not two.
void Parser::fold_fallen_off_into_xid79() {
  std::vector<KernelLogEvent>& ev = folder_.events();
  for (size_t i = ev.size(); i-- > 0;) {
    if (ev[i].kind != EventKind::kFallenOffBus || !ev[i].pci_bus_id) continue;
    std::optional<size_t> j = xid79_for(ev, ev[i]);
    if (!j) continue;
    ev[*j].line += " | " + ev[i].line;
    folder_.erase(i);
  }
}

ParsedKernelLog Parser::finish() {
  fold_fallen_off_into_xid79();
  out_.events = folder_.take();
  mark_cancellations(out_.events);
  return std::move(out_);
}

}  // namespace

ParsedKernelLog parse_text(string_view text, LogBoot boot, const EventHook& hook) {
  Parser parser(boot, hook);
  while (!text.empty()) {
    size_t nl = text.find('\n');
    parser.feed(text.substr(0, nl));
    if (nl == kNpos) break;
    text.remove_prefix(nl + 1);
  }
  return parser.finish();
}

}  // namespace gt::klog

namespace gt {

ParsedKernelLog parse_kernel_log_text(std::string_view text, LogBoot boot) {
  return klog::parse_text(text, boot);
}

}  // namespace gt
