#include "data/formats/value_consumer.h"

#include <zlib.h>

#include <algorithm>
#include <set>

namespace gt {
namespace {

constexpr size_t kMaxZeroNames = 8;

std::string counts_text(const ValueCounts& c) {
  std::string out;
  auto part = [&](uint64_t n, const char* what) {
    if (n) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  part(c.nan, "NaN");
  part(c.pos_inf, "+Inf");
  part(c.neg_inf, "-Inf");
  return out;
}

class ValueConsumer : public StreamConsumer {
 public:
  ValueConsumer(ValueSpans spans, bool allow)
      : ranges_(std::move(spans.ranges)), uncounted_(std::move(spans.uncounted)), allow_(allow) {
    std::sort(ranges_.begin(), ranges_.end(),
              [](const ValueRange& a, const ValueRange& b) { return a.begin < b.begin; });
    for (const ValueRange& r : ranges_) state_.push_back(std::make_unique<State>(r.layout));
  }
  ~ValueConsumer() override {
    for (auto& s : state_)
      if (s->inflating) inflateEnd(&s->z);
  }
  void feed(uint64_t offset, const uint8_t* p, size_t n) override;
  void finish(FileCheck& check) override;

 private:
  struct State {
    explicit State(FloatLayout l) : scanner(l) {}
    ValueScanner scanner;
    uint64_t inflated = 0;  // deflated ranges: inflated bytes so far
    bool inflating = false, done = false;
    z_stream z{};
  };
  void inflate_part(const ValueRange& r, State& s, const uint8_t* p, size_t n);

  std::vector<ValueRange> ranges_;
  std::vector<std::string> uncounted_;
  bool allow_;
  std::vector<std::unique_ptr<State>> state_;
  size_t first_ = 0;
  uint8_t out_[64 * 1024];
};

// Inflates and counts past the first `skip` bytes. Damaged deflate data
// stops the count here; the CRC pass reports the damage.
void ValueConsumer::inflate_part(const ValueRange& r, State& s, const uint8_t* p, size_t n) {
  if (s.done) return;
  if (!s.inflating) {
    if (inflateInit2(&s.z, -15) != Z_OK) return void(s.done = true);
    s.inflating = true;
  }
  s.z.next_in = const_cast<uint8_t*>(p);
  s.z.avail_in = static_cast<uInt>(n);
  while (!s.done && s.z.avail_in > 0) {
    s.z.next_out = out_;
    s.z.avail_out = sizeof out_;
    int rc = inflate(&s.z, Z_NO_FLUSH);
    size_t got = sizeof out_ - s.z.avail_out;
    uint64_t from = std::min<uint64_t>(got, r.skip > s.inflated ? r.skip - s.inflated : 0);
    s.scanner.add(out_ + from, got - from);
    s.inflated += got;
    if (rc != Z_OK) s.done = true;  // the end, or damage
  }
  if (s.done && s.inflating) {  // one zlib state alive at a time
    inflateEnd(&s.z);
    s.inflating = false;
  }
}

void ValueConsumer::feed(uint64_t offset, const uint8_t* p, size_t n) {
  const uint64_t end = offset + n;
  while (first_ < ranges_.size() && ranges_[first_].end <= offset) ++first_;
  for (size_t i = first_; i < ranges_.size() && ranges_[i].begin < end; ++i) {
    const ValueRange& r = ranges_[i];
    uint64_t lo = std::max(r.begin, offset), hi = std::min(r.end, end);
    if (lo >= hi) continue;
    if (r.deflated)
      inflate_part(r, *state_[i], p + (lo - offset), hi - lo);
    else
      state_[i]->scanner.add(p + (lo - offset), hi - lo);
  }
}

void ValueConsumer::finish(FileCheck& check) {
  ValueSummary v;
  const ValueRange* worst = nullptr;
  ValueCounts worst_counts;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    const ValueCounts& c = state_[i]->scanner.counts();
    add_tensor_counts(v, ranges_[i].label, c);
    if (c.non_finite() > worst_counts.non_finite()) worst = &ranges_[i], worst_counts = c;
  }
  v.uncounted_tensors = uncounted_.size();
  std::set<std::string> dtypes(uncounted_.begin(), uncounted_.end());
  v.uncounted_dtypes.assign(dtypes.begin(), dtypes.end());
  if (v.non_finite() > 0 && !allow_) {
    ValueCounts total;
    total.nan = v.nan, total.pos_inf = v.pos_inf, total.neg_inf = v.neg_inf;
    check.problems.push_back(
        {ProblemCode::kNonFinite, counts_text(total) + " in " + std::to_string(v.elements) +
                                      " float values; the most in " + worst->label + " (" +
                                      counts_text(worst_counts) + ")"});
  }
  check.values = std::move(v);
}

}  // namespace

void add_tensor_counts(ValueSummary& v, const std::string& label, const ValueCounts& c) {
  ++v.tensors;
  v.elements += c.elements;
  v.nan += c.nan;
  v.pos_inf += c.pos_inf;
  v.neg_inf += c.neg_inf;
  if (!c.all_zero()) return;
  ++v.zero_tensors;
  if (v.zero_tensor_names.size() < kMaxZeroNames) v.zero_tensor_names.push_back(label);
}

std::unique_ptr<StreamConsumer> make_value_consumer(ValueSpans spans, bool allow_non_finite) {
  if (!spans.decoded) return nullptr;
  return std::make_unique<ValueConsumer>(std::move(spans), allow_non_finite);
}

}  // namespace gt
