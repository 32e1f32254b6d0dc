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

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "data/byte_source.h"

namespace gt {
namespace {

// Values are 16 trivially copyable bytes: a string points into the pickle
// bytes, which outlive the walk (a global keeps only its name, the part
// after the module that names a storage's dtype); a tuple is a range of the
// walker's item arena. No allocation per opcode.
struct Value {
  enum Kind : uint8_t { kMark, kStr, kInt, kGlobal, kTuple, kOther } kind = kOther;
  uint32_t n = 0;  // kStr, kGlobal: the string's length; kTuple: its item count
  union {
    const char* str = nullptr;  // kStr: the string; kGlobal: the name
    int64_t i;                  // kInt
    uint32_t first;             // kTuple: items[first, first + n), or kNoItems
  };
  std::string_view text() const { return {str, n}; }
};
static_assert(sizeof(Value) == 16);

constexpr size_t kMaxStack = 1 << 20;
// A pickler numbers its memo densely from 0 (pickle.py: len(self.memo)); an
// index far beyond the memo's size is not modelled rather than allocated.
constexpr size_t kMemoSlack = 1 << 12;
// A tuple's items are kept only when it may be a storage's persistent id
// ('storage', class, key, location, numel[, view]): memory stays a few
// values per storage, whatever the pickle holds.
constexpr uint32_t kNoItems = UINT32_MAX;
// The most one opcode grows the stack (TUPLE3 on an empty stack: three
// missing items, then the tuple in their place).
constexpr size_t kMaxGrowth = 3;

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
  void trim() {
    for (std::vector<Value>* v : {&stack, &memo, &items})
      if (v->capacity() > kKeptValues) std::vector<Value>().swap(*v);
  }
  static constexpr size_t kKeptValues = 4096;
};

// The ways a walk stops early, out of the loop's way (cold, never inlined).
[[gnu::cold, gnu::noinline]] void stop_unsupported(PickleScan& out, size_t at, uint8_t op,
                                                   const std::string& why) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", op);
  out.unsupported = true;
  out.error = "pickle byte " + std::to_string(at) + ": opcode " + b + " " + why;
}

// The bytes end inside an opcode's argument: `at` is where the walk stood.
[[gnu::cold, gnu::noinline]] void stop_cut(PickleScan& out, size_t at, const char* what) {
  out.cut = true;
  out.error = "pickle byte " + std::to_string(at) + ": " + what;
}

[[gnu::cold, gnu::noinline]] void stop_invalid(PickleScan& out, size_t at, uint8_t op) {
  char b[4];
  std::snprintf(b, sizeof b, "%02x", op);
  out.error = "pickle byte " + std::to_string(at) + ": 0x" + b +
              " is not a pickle opcode (Python: invalid load key)";
}

// A string of the pickle as a value (one over 4 GiB, never a storage's
// key or dtype, as an opaque one).
Value string_value(Value::Kind k, const char* s, uint64_t n) {
  Value v;
  if (n > UINT32_MAX) return v;
  v.kind = k;
  v.n = static_cast<uint32_t>(n);
  v.str = s;
  return v;
}

// A persistent id ('storage', torch.<Dtype>Storage, key, location, numel):
// one storage of the file.
void persid(const Value& v, const std::vector<Value>& items, PickleScan& out) {
  if (v.kind != Value::kTuple || v.first == kNoItems) return;
  const Value* t = items.data() + v.first;
  if (t[0].kind != Value::kStr || t[0].text() != "storage" || t[1].kind != Value::kGlobal ||
      t[2].kind != Value::kStr || t[4].kind != Value::kInt || t[4].i < 0)
    return;
  StorageRef r;
  r.key = t[2].text();
  // The global is "torch" . "BFloat16Storage": the dtype follows the last dot.
  std::string_view g = t[1].text();
  size_t dot = g.rfind('.');
  r.dtype = g.substr(dot == std::string_view::npos ? 0 : dot + 1);
  if (r.dtype.size() > 7 && r.dtype.ends_with("Storage")) r.dtype.resize(r.dtype.size() - 7);
  r.numel = static_cast<uint64_t>(t[4].i);
  r.itemsize_bytes = torch_dtype_itemsize(r.dtype);
  r.is_float = r.dtype == "Float" || r.dtype == "Double" || r.dtype == "Half" ||
               r.dtype == "BFloat16" || r.dtype.starts_with("Float8");
  out.storages.push_back(std::move(r));
}

// The walk: one loop over the opcodes, its state (the position, the stack
// and its top) in locals, so that in every build, -O1 too, they stay in
// registers and an opcode costs a few instructions. The stack is
// st[0, sp): the vector only grows (kMaxGrowth ahead of sp before each
// opcode), so a push is a store. Flattened: the helpers below are inlined.
[[gnu::flatten]] PickleScan walk(std::string_view pickle, size_t start, bool keep_strings,
                                 Scratch& scratch, size_t* end_offset) {
  PickleScan out;
  out.storages.reserve(8);  // a sample's few tensors: one allocation, not one per doubling
  const char* const base = pickle.data();
  const char* const end = base + pickle.size();
  const char* cur = base + std::min(start, pickle.size());
  std::vector<Value>& stack = scratch.stack;
  std::vector<Value>& memo = scratch.memo;    // BINPUT indices are small and dense
  std::vector<Value>& items = scratch.items;  // the items of tuples that may be a persistent id
  memo.clear();
  items.clear();
  if (stack.size() < 64) stack.resize(64);
  Value* st = stack.data();
  size_t cap = stack.size(), sp = 0;

  auto at = [&] { return size_t(cur - base); };
  auto left = [&] { return size_t(end - cur); };
  auto le = [&](size_t n) {  // a little-endian integer of n bytes; left() >= n
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t(uint8_t(cur[k])) << (8 * k);
    cur += n;
    return v;
  };
  auto arg = [&](size_t n, uint64_t& v) {
    if (left() < n) return false;
    v = le(n);
    return true;
  };
  auto push = [&](const Value& v) { st[sp++] = v; };
  auto push_kind = [&](Value::Kind k) {
    Value v;
    v.kind = k;
    st[sp++] = v;
  };
  auto pop = [&] { return sp == 0 ? Value{} : st[--sp]; };
  auto mark_index = [&] {  // the topmost mark, or sp when there is none
    for (size_t k = sp; k-- > 0;)
      if (st[k].kind == Value::kMark) return k;
    return sp;
  };
  auto drop_to_mark = [&] {
    const size_t m = mark_index();
    sp = m == sp ? 0 : m;
  };
  // Replaces st[begin, end) (and everything above new_size) by a tuple.
  auto push_tuple_from = [&](size_t first, size_t last, size_t new_size) {
    Value v;
    v.kind = Value::kTuple;
    v.n = static_cast<uint32_t>(last - first);
    v.first = kNoItems;
    if ((v.n == 5 || v.n == 6) && st[first].kind == Value::kStr && st[first].text() == "storage") {
      v.first = static_cast<uint32_t>(items.size());
      items.insert(items.end(), st + first, st + last);
    }
    sp = new_size;
    push(v);
  };
  auto memo_put = [&](uint64_t n) {
    if (sp == 0) return true;
    if (n > memo.size() + kMemoSlack || n >= kMaxStack) return false;
    if (n == memo.size())
      memo.push_back(st[sp - 1]);
    else {
      if (memo.size() < n) memo.resize(n + 1);
      memo[n] = st[sp - 1];
    }
    return true;
  };

  bool stop = false;
  while (!stop && cur < end) {
    if (sp + kMaxGrowth >= cap) {
      stack.resize(2 * cap);
      st = stack.data();
      cap = stack.size();
    }
    if (sp >= kMaxStack) {
      stop_unsupported(out, at(), uint8_t(*cur),
                       "on a stack deeper than " + std::to_string(kMaxStack) + " not modelled");
      break;
    }
    const uint8_t op = uint8_t(*cur++);
    uint64_t n = 0;
    switch (op) {
      case 0x80:
        if (!arg(1, n)) stop_cut(out, at(), "cut inside PROTO"), stop = true;
        break;
      case 0x95:
        if (!arg(8, n)) stop_cut(out, at(), "cut inside FRAME"), stop = true;
        break;
      case '.':
        out.complete = true;
        stop = true;
        break;
      case '(':
        push_kind(Value::kMark);
        break;
      case '}':
      case ']':
      case 'N':
      case 0x88:
      case 0x89:
      case 0x8f:  // EMPTY_SET
        push_kind(Value::kOther);
        break;
      case 'd':   // DICT
      case 'l':   // LIST
      case 0x91:  // FROZENSET
        drop_to_mark();
        push_kind(Value::kOther);
        break;
      case 0x82:  // EXT1, EXT2, EXT4: an extension code
      case 0x83:
      case 0x84:
        if (!arg(op == 0x82 ? 1 : op == 0x83 ? 2 : 4, n)) {
          stop_cut(out, at(), "cut inside EXT");
          stop = true;
        } else {
          push_kind(Value::kOther);
        }
        break;
      case ')':
        push_tuple_from(sp, sp, sp);
        break;
      case 'q':
      case 'r':
      case 0x94:
        if (op != 0x94 && !arg(op == 'q' ? 1 : 4, n)) {
          stop_cut(out, at(), "cut inside BINPUT");
          stop = true;
          break;
        }
        if (op == 0x94) n = memo.size();
        if (!memo_put(n)) {
          stop_unsupported(
              out, at(), op,
              "memo index " + std::to_string(n) + " far beyond the memo's size not modelled");
          stop = true;
        }
        break;
      case 'h':
      case 'j':
        if (!arg(op == 'h' ? 1 : 4, n)) {
          stop_cut(out, at(), "cut inside BINGET");
          stop = true;
        } else {
          push(n < memo.size() ? memo[n] : Value{});
        }
        break;
      case 'X':
      case 'T':
      case 'U':
      case 0x8c:
      case 0x8d:  // BINUNICODE8
      case 'B':
      case 'C':
      case 0x8e:    // BINBYTES8
      case 0x96: {  // BYTEARRAY8
        const size_t w = (op == 'U' || op == 0x8c || op == 'C') ? 1 : op >= 0x8d ? 8 : 4;
        if (!arg(w, n) || left() < n) {
          stop_cut(out, at(), "string runs past the end");
          stop = true;
          break;
        }
        const bool text = !(op == 'B' || op == 'C' || op == 0x8e || op == 0x96);
        if (text && keep_strings && out.strings.size() < kMaxStack)
          out.strings.emplace_back(cur, n);
        push(text ? string_value(Value::kStr, cur, n) : Value{});
        cur += n;
        break;
      }
      case 'c': {  // GLOBAL: "module\nname\n"; the name is kept
        const char* nl = static_cast<const char*>(std::memchr(cur, '\n', left()));
        if (nl != nullptr) {
          cur = nl + 1;
          nl = static_cast<const char*>(std::memchr(cur, '\n', left()));
        }
        if (nl == nullptr) {
          stop_cut(out, at(), "cut inside GLOBAL");
          stop = true;
          break;
        }
        push(string_value(Value::kGlobal, cur, uint64_t(nl - cur)));
        cur = nl + 1;
        break;
      }
      case 0x93: {  // STACK_GLOBAL: module, name
        const Value name = pop();
        pop();
        push(name.kind == Value::kStr ? string_value(Value::kGlobal, name.str, name.n)
                                      : string_value(Value::kGlobal, "", 0));
        break;
      }
      case 'K':
      case 'M':
      case 'J':
        if (!arg(op == 'K' ? 1 : op == 'M' ? 2 : 4, n)) {
          stop_cut(out, at(), "cut inside an integer");
          stop = true;
        } else {
          Value v;
          v.kind = Value::kInt;
          v.i = op == 'J' ? int64_t(int32_t(uint32_t(n))) : int64_t(n);
          push(v);
        }
        break;
      case 0x8a: {  // LONG1
        if (!arg(1, n) || left() < n) {
          stop_cut(out, at(), "cut inside LONG1");
          stop = true;
          break;
        }
        Value v;
        if (n <= 8) {
          uint64_t raw = le(n);
          if (n > 0 && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~uint64_t(0) << (8 * n);
          v.kind = Value::kInt;
          v.i = int64_t(raw);
        } else {
          cur += n;
        }
        push(v);
        break;
      }
      case 0x8b:  // LONG4: too wide for a numel
        if (!arg(4, n) || left() < n) {
          stop_cut(out, at(), "cut inside LONG4");
          stop = true;
        } else {
          cur += n;
          push_kind(Value::kOther);
        }
        break;
      case 'G':
        if (left() < 8) {
          stop_cut(out, at(), "cut inside BINFLOAT");
          stop = true;
        } else {
          cur += 8;
          push_kind(Value::kOther);
        }
        break;
      case 't': {
        const size_t m = mark_index();
        if (m == sp)  // no mark: everything on the stack
          push_tuple_from(0, sp, 0);
        else
          push_tuple_from(m + 1, sp, m);
        break;
      }
      case 0x85:
      case 0x86:
      case 0x87: {
        // Missing items (a short stack) are default values at the front.
        const size_t want = op - 0x84, have = std::min(want, sp);
        const size_t first = sp - have;  // the items there move up past the missing ones
        std::copy_backward(st + first, st + sp, st + first + want);
        std::fill(st + first, st + first + (want - have), Value{});
        sp = first + want;
        push_tuple_from(sp - want, sp, sp - want);
        break;
      }
      case 'Q':
        persid(pop(), items, out);
        push_kind(Value::kOther);
        break;
      case 'R':
      case 0x81:
        pop();
        pop();
        push_kind(Value::kOther);
        break;
      case 0x92:  // NEWOBJ_EX: cls, args, kwargs
        pop();
        pop();
        pop();
        push_kind(Value::kOther);
        break;
      case 'b':
      case 'a':
      case '0':
        pop();
        break;
      case 's':
        pop();
        pop();
        break;
      case 0x90:  // ADDITEMS
      case 'u':
      case 'e':
      case '1':
        drop_to_mark();
        break;
      case '2':
        if (sp > 0) push(st[sp - 1]);
        break;
      default:
        if (is_pickle_opcode(op))
          stop_unsupported(out, at() - 1, op, "not modelled");
        else
          stop_invalid(out, at() - 1, op);
        stop = true;
    }
  }
  const size_t pos = start > pickle.size() ? start : at();
  if (!out.complete && !out.error) {
    out.cut = true;
    out.error = "pickle ends without STOP at byte " + std::to_string(pos);
  }
  if (end_offset) *end_offset = pos;
  return out;
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
  PickleScan out = walk(pickle, start, strings == PickleStrings::kKeep, scratch, end_offset);
  scratch.trim();
  return out;
}

}  // namespace gt
