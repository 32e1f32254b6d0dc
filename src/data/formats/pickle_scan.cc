// torch.save writes data.pkl with pickle protocol 2 (DEFAULT_PROTOCOL), and
// every tensor's storage becomes a persistent id, a tuple
// ('storage', torch.<Dtype>Storage, key, location, numel) passed to
// BINPERSID. The storage class is a GLOBAL that is memoised (BINPUT) on
// first use and fetched (BINGET) afterwards, so the walker keeps a memo.
// Newer torch may use protocol 4 framing (FRAME, MEMOIZE, SHORT_BINUNICODE,
// STACK_GLOBAL), handled too. The legacy (pre-1.6) format stores a sixth
// tuple item (view metadata), which is ignored. A byte that is no pickle
// opcode at all stops the walk as invalid (Python: "invalid load key"); a
// valid opcode we do not model (text-mode opcodes, protocol 5 buffers) stops
// it as "unsupported": the sizes are unknown, so the callers report the file
// as unverifiable, never as intact.
#include "data/formats/pickle_scan.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include "data/byte_source.h"

namespace gt {
namespace {

// Values are trivially copyable views: strings point into the pickle bytes,
// which outlive the walk; a global keeps its module and name apart; a tuple
// is a range of the walker's item arena. No allocation per opcode.
struct Value {
  enum Kind { kMark, kStr, kInt, kGlobal, kTuple, kOther } kind = kOther;
  std::string_view s;     // kStr: the string; kGlobal: the module
  std::string_view name;  // kGlobal: the name
  int64_t i = 0;
  uint32_t first = 0, count = 0;  // kTuple: items_[first, first + count), or first == kNoItems
};

constexpr size_t kMaxStack = 1 << 20;
// A pickler numbers its memo densely from 0 (pickle.py: len(self.memo)); an
// index far beyond the memo's size is not modelled rather than allocated.
constexpr size_t kMemoSlack = 1 << 12;
// A tuple's items are kept only when it may be a storage's persistent id
// ('storage', class, key, location, numel[, view]): memory stays a few
// values per storage, whatever the pickle holds.
constexpr uint32_t kNoItems = UINT32_MAX;

// Every opcode of pickle protocols 0-5 (Lib/pickletools.py). Any other byte
// is refused by Python's unpickler ("invalid load key").
bool is_pickle_opcode(uint8_t op) {
  static constexpr std::string_view kText = "(.012BCFGIJKLMNPQRSTUVXabcdeghijlopqrstu}])";
  return (op >= 0x80 && op <= 0x98) || kText.find(char(op)) != std::string_view::npos;
}

// The walker's stack, memo and tuple items, kept by each thread from one
// pickle to the next (a data.pkl of 400 bytes cost a dozen allocations for
// them); what a big pickle grew past kKeptValues is given back after it.
struct Scratch {
  std::vector<Value> stack, memo, items;
};
constexpr size_t kKeptValues = 4096;

class Walker {
 public:
  Walker(std::string_view p, size_t pos, PickleStrings strings, Scratch& scratch)
      : p_(p),
        pos_(pos),
        keep_strings_(strings == PickleStrings::kKeep),
        stack_(scratch.stack),
        memo_(scratch.memo),
        items_(scratch.items) {
    stack_.clear();
    memo_.clear();
    items_.clear();
    stack_.reserve(64);
  }
  ~Walker() {
    for (std::vector<Value>* v : {&stack_, &memo_, &items_})
      if (v->capacity() > kKeptValues) std::vector<Value>().swap(*v);
  }
  Walker(const Walker&) = delete;
  Walker& operator=(const Walker&) = delete;
  // Flattened: step() and the stack operations it calls per opcode are
  // inlined into the loop in every build, -O1 too (a call per opcode and
  // per push was most of a small data.pkl's walk).
  [[gnu::flatten]] PickleScan run(size_t* end_offset);

 private:
  bool need(size_t n) { return p_.size() - pos_ >= n; }
  uint64_t take_le(size_t n) {
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t(uint8_t(p_[pos_ + k])) << (8 * k);
    pos_ += n;
    return v;
  }
  std::optional<std::string_view> take_line() {
    size_t nl = p_.find('\n', pos_);
    if (nl == std::string_view::npos) return std::nullopt;
    std::string_view s = p_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return s;
  }
  Value pop() {
    if (stack_.empty()) return Value{};
    Value v = stack_.back();
    stack_.pop_back();
    return v;
  }
  // Index of the topmost mark, or stack_.size() when there is none.
  size_t mark_index() const {
    for (size_t k = stack_.size(); k-- > 0;)
      if (stack_[k].kind == Value::kMark) return k;
    return stack_.size();
  }
  void drop_to_mark() {
    size_t m = mark_index();
    stack_.resize(m == stack_.size() ? 0 : m);
  }
  void push(const Value& v) { stack_.push_back(v); }
  // Replaces stack_[begin, end) (and everything above new_size) by a tuple.
  void push_tuple_from(size_t begin, size_t end, size_t new_size) {
    Value v;
    v.kind = Value::kTuple;
    v.count = static_cast<uint32_t>(end - begin);
    v.first = kNoItems;
    if ((v.count == 5 || v.count == 6) && stack_[begin].kind == Value::kStr &&
        stack_[begin].s == "storage") {
      v.first = static_cast<uint32_t>(items_.size());
      items_.insert(items_.end(), stack_.begin() + begin, stack_.begin() + end);
    }
    stack_.resize(new_size);
    push(v);
  }
  // Skips a length-prefixed argument of `width` bytes; false when cut.
  bool skip_sized(size_t width) {
    if (!need(width)) return false;
    uint64_t n = take_le(width);
    if (!need(n)) return false;
    pos_ += n;
    return true;
  }
  bool memo_put(uint64_t n);
  // The ways a walk stops early, out of step()'s way (cold, never inlined).
  [[gnu::cold, gnu::noinline]] bool stop_unsupported(size_t at, uint8_t op, const std::string& why);
  [[gnu::cold, gnu::noinline]] bool stop_cut(const char* what);  // the bytes end in an opcode
  [[gnu::cold, gnu::noinline]] bool stop_invalid(uint8_t op);
  void persid(const Value& v);
  bool step(uint8_t op);  // false: stop walking (STOP, error or unsupported)

  std::string_view p_;
  size_t pos_;
  bool keep_strings_;
  std::vector<Value>& stack_;
  std::vector<Value>& memo_;   // BINPUT indices are small and dense
  std::vector<Value>& items_;  // tuple items; each pushed value lands here at most once per tuple
  PickleScan out_;
};

void Walker::persid(const Value& v) {
  if (v.kind != Value::kTuple || v.first == kNoItems) return;
  const Value* t = items_.data() + v.first;
  if (t[0].kind != Value::kStr || t[0].s != "storage" || t[1].kind != Value::kGlobal ||
      t[2].kind != Value::kStr || t[4].kind != Value::kInt || t[4].i < 0)
    return;
  StorageRef r;
  r.key = t[2].s;
  // The global is "torch" . "BFloat16Storage": the dtype follows the last dot.
  std::string_view g = t[1].name;
  size_t dot = g.rfind('.');
  r.dtype = g.substr(dot == std::string_view::npos ? 0 : dot + 1);
  if (r.dtype.size() > 7 && r.dtype.ends_with("Storage")) r.dtype.resize(r.dtype.size() - 7);
  r.numel = static_cast<uint64_t>(t[4].i);
  r.itemsize_bytes = torch_dtype_itemsize(r.dtype);
  r.is_float = r.dtype == "Float" || r.dtype == "Double" || r.dtype == "Half" ||
               r.dtype == "BFloat16" || r.dtype.starts_with("Float8");
  out_.storages.push_back(std::move(r));
}

bool Walker::memo_put(uint64_t n) {
  if (stack_.empty()) return true;
  if (n > memo_.size() + kMemoSlack || n >= kMaxStack) return false;
  if (memo_.size() <= n) memo_.resize(n + 1);
  memo_[n] = stack_.back();
  return true;
}

bool Walker::stop_unsupported(size_t at, uint8_t op, const std::string& why) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", op);
  out_.unsupported = true;
  out_.error = "pickle byte " + std::to_string(at) + ": opcode " + b + " " + why;
  return false;
}

bool Walker::stop_cut(const char* what) {
  out_.cut = true;
  out_.error = "pickle byte " + std::to_string(pos_) + ": " + what;
  return false;
}

bool Walker::stop_invalid(uint8_t op) {
  char b[4];
  std::snprintf(b, sizeof b, "%02x", op);
  out_.error = "pickle byte " + std::to_string(pos_ - 1) + ": 0x" + b +
               " is not a pickle opcode (Python: invalid load key)";
  return false;
}

bool Walker::step(uint8_t op) {
  auto fail = [&](const char* what) { return stop_cut(what); };
  auto arg = [&](size_t n, uint64_t& v) {
    if (!need(n)) return false;
    v = take_le(n);
    return true;
  };
  uint64_t n = 0;
  Value v;
  switch (op) {
    case 0x80:
      return arg(1, n) || fail("cut inside PROTO");
    case 0x95:
      return arg(8, n) || fail("cut inside FRAME");
    case '.':
      out_.complete = true;
      return false;
    case '(':
      v.kind = Value::kMark;
      push(v);
      return true;
    case '}':
    case ']':
    case 'N':
    case 0x88:
    case 0x89:
    case 0x8f:  // EMPTY_SET
      push(v);
      return true;
    case 'd':   // DICT
    case 'l':   // LIST
    case 0x91:  // FROZENSET
      drop_to_mark();
      push(v);
      return true;
    case 0x82:  // EXT1, EXT2, EXT4: an extension code
    case 0x83:
    case 0x84:
      if (!arg(op == 0x82 ? 1 : op == 0x83 ? 2 : 4, n)) return fail("cut inside EXT");
      push(v);
      return true;
    case ')':
      push_tuple_from(stack_.size(), stack_.size(), stack_.size());
      return true;
    case 'q':
    case 'r':
    case 0x94:
      if (op != 0x94 && !arg(op == 'q' ? 1 : 4, n)) return fail("cut inside BINPUT");
      if (op == 0x94) n = memo_.size();
      return memo_put(n) || stop_unsupported(pos_, op,
                                             "memo index " + std::to_string(n) +
                                                 " far beyond the memo's size not modelled");
    case 'h':
    case 'j':
      if (!arg(op == 'h' ? 1 : 4, n)) return fail("cut inside BINGET");
      push(n < memo_.size() ? memo_[n] : Value{});
      return true;
    case 'X':
    case 'T':
    case 'U':
    case 0x8c:
    case 0x8d:  // BINUNICODE8
    case 'B':
    case 'C':
    case 0x8e:    // BINBYTES8
    case 0x96: {  // BYTEARRAY8
      size_t w = (op == 'U' || op == 0x8c || op == 'C') ? 1 : op >= 0x8d ? 8 : 4;
      if (!arg(w, n) || !need(n)) return fail("string runs past the end");
      v.kind = (op == 'B' || op == 'C' || op == 0x8e || op == 0x96) ? Value::kOther : Value::kStr;
      if (v.kind == Value::kStr) v.s = p_.substr(pos_, n);
      if (v.kind == Value::kStr && keep_strings_ && out_.strings.size() < kMaxStack)
        out_.strings.emplace_back(v.s);
      pos_ += n;
      push(v);
      return true;
    }
    case 'c': {
      std::optional<std::string_view> mod = take_line(), name = mod ? take_line() : std::nullopt;
      if (!name) return fail("cut inside GLOBAL");
      v.kind = Value::kGlobal;
      v.s = *mod;
      v.name = *name;
      push(v);
      return true;
    }
    case 0x93: {
      Value name = pop(), mod = pop();
      v.kind = Value::kGlobal;
      v.s = mod.s;
      v.name = name.s;
      push(v);
      return true;
    }
    case 'K':
    case 'M':
    case 'J':
      if (!arg(op == 'K' ? 1 : op == 'M' ? 2 : 4, n)) return fail("cut inside an integer");
      v.kind = Value::kInt;
      v.i = op == 'J' ? int64_t(int32_t(uint32_t(n))) : int64_t(n);
      push(v);
      return true;
    case 0x8a:
      if (!arg(1, n) || !need(n)) return fail("cut inside LONG1");
      if (n <= 8) {
        uint64_t raw = take_le(n);
        if (n > 0 && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~uint64_t(0) << (8 * n);
        v.kind = Value::kInt;
        v.i = int64_t(raw);
      } else {
        pos_ += n;
      }
      push(v);
      return true;
    case 0x8b:  // LONG4: too wide for a numel
      if (!skip_sized(4)) return fail("cut inside LONG4");
      push(v);
      return true;
    case 'G':
      if (!need(8)) return fail("cut inside BINFLOAT");
      pos_ += 8;
      push(v);
      return true;
    case 't': {
      size_t m = mark_index();
      if (m == stack_.size())  // no mark: everything on the stack
        push_tuple_from(0, stack_.size(), 0);
      else
        push_tuple_from(m + 1, stack_.size(), m);
      return true;
    }
    case 0x85:
    case 0x86:
    case 0x87: {
      // Missing items (a short stack) are default values at the front.
      size_t want = op - 0x84, have = std::min(want, stack_.size());
      stack_.insert(stack_.end() - have, want - have, Value{});
      push_tuple_from(stack_.size() - want, stack_.size(), stack_.size() - want);
      return true;
    }
    case 'Q':
      persid(pop());
      push(v);
      return true;
    case 'R':
    case 0x81:
      pop();
      pop();
      push(v);
      return true;
    case 0x92:  // NEWOBJ_EX: cls, args, kwargs
      pop();
      pop();
      pop();
      push(v);
      return true;
    case 'b':
    case 'a':
    case '0':
      pop();
      return true;
    case 0x90:  // ADDITEMS
      drop_to_mark();
      return true;
    case 's':
      pop();
      pop();
      return true;
    case 'u':
    case 'e':
    case '1':
      drop_to_mark();
      return true;
    case '2':
      if (!stack_.empty()) push(stack_.back());
      return true;
    default:
      if (is_pickle_opcode(op)) return stop_unsupported(pos_ - 1, op, "not modelled");
      return stop_invalid(op);
  }
}

PickleScan Walker::run(size_t* end_offset) {
  while (pos_ < p_.size()) {
    if (stack_.size() >= kMaxStack) {
      stop_unsupported(pos_, uint8_t(p_[pos_]),
                       "on a stack deeper than " + std::to_string(kMaxStack) + " not modelled");
      break;
    }
    uint8_t op = uint8_t(p_[pos_++]);
    if (!step(op)) break;
  }
  if (!out_.complete && !out_.error) {
    out_.cut = true;
    out_.error = "pickle ends without STOP at byte " + std::to_string(pos_);
  }
  if (end_offset) *end_offset = pos_;
  return std::move(out_);
}

}  // namespace

std::optional<uint32_t> torch_dtype_itemsize(std::string_view d) {
  static constexpr std::pair<std::string_view, uint32_t> kSizes[] = {
      {"Float", 4},         {"Double", 8},      {"Half", 2},         {"BFloat16", 2},
      {"Long", 8},          {"Int", 4},         {"Short", 2},        {"Char", 1},
      {"Byte", 1},          {"Bool", 1},        {"ComplexFloat", 8}, {"ComplexDouble", 16},
      {"QInt8", 1},         {"QUInt8", 1},      {"QInt32", 4},       {"Untyped", 1},
      {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}, {"UInt16", 2},       {"UInt32", 4},
      {"UInt64", 8}};
  for (const auto& [name, size] : kSizes)
    if (d == name) return size;
  return std::nullopt;
}

PickleScan scan_pickle(std::string_view pickle, size_t start, size_t* end_offset,
                       PickleStrings strings) {
  thread_local Scratch scratch;
  return Walker(pickle, start, strings, scratch).run(end_offset);
}

}  // namespace gt
