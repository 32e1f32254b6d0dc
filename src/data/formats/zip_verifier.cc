// Verifying torch.save zips and .npz files.
//
// torch.save (caffe2/serialize/inline_container.cc, through miniz) writes
// every record stored (method 0), under one top-level folder (the file's
// base name, or "archive/" when saving to a buffer as SpecForge's .ckpt.gz
// does), with each record's data aligned to 64 bytes by an "FB" extra field
// of 'Z's. Local headers have flag bit 3 and CRC and sizes set to 0; the real
// values follow each record in a data descriptor (PK\x07\x08 + CRC + sizes,
// 16 bytes, or 24 when the entry needs zip64) and are repeated in the
// central directory. torch.load never checks the CRC (PyTorch builds miniz
// with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS), so a flipped bit or a zeroed
// block loads "fine": only our deep pass sees it. torch 2.x can write CRC 0
// (set_crc32_options(False)); a torch zip whose central CRC is 0 is not
// checked. Records: data.pkl (pickle protocol 2, whose persistent ids give
// each storage's dtype and numel), data/<key> (numel*itemsize raw bytes),
// version, and in 2.x byteorder, .format_version, .storage_alignment and
// .data/serialization_id.
//
// NumPy's savez goes through Python's zipfile: no descriptor when the output
// is seekable (CRC and sizes in the local header), members <name>.npy,
// stored (savez) or deflated (savez_compressed).
//
// Quick mode reads the tail, the central directory and each local header,
// and checks that local header + name + extra + data + descriptor tile the
// file back to back up to the central directory; every size from a header is
// checked against the file before anything is read or allocated. It then
// reads data.pkl (torch) or each member's .npy header (npz; the first KiB
// inflated when deflated). What cannot be checked (an unmodelled pickle
// opcode, a dtype of unknown size) leaves the file unverifiable.
#include "data/formats/zip_verifier.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "data/formats/npy_verifier.h"
#include "data/formats/pickle_scan.h"
#include "data/formats/value_consumer.h"
#include "data/formats/zip_reader.h"

namespace gt {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kDescriptorSig = 0x08074b50;
constexpr uint64_t kMaxPickleBytes = 64ull << 20;

struct Record {
  ZipEntry entry;
  uint64_t data_begin = 0, data_end = 0;  // compressed bytes in the file
  uint64_t next = 0;                      // where the next record should start
  bool float_storage = false;
  std::string dtype;                ///< torch storage dtype (from data.pkl)
  std::optional<NpyHeader> member;  ///< npz member header
};

std::string name_of(const ZipEntry& e) { return "record " + e.name; }

// Reads one local header and fills the record's data range, which must end
// before the central directory at `cd_offset`; false on a problem. Sizes
// come from a possibly damaged directory: every sum is checked before use.
bool read_local(const ByteSource& src, const ZipEntry& e, uint64_t cd_offset, Record& r,
                FileCheck& check) {
  std::vector<uint8_t> scratch;  // used only for bytes the source does not hold
  std::optional<std::span<const uint8_t>> h =
      view_or_note(src, e.local_header_offset, 30 + e.name.size(), scratch, check);
  if (!h) return false;
  if (h->size() < 30 || le32(h->data()) != kLocalSig) {
    bool zeros = h->size() >= 4 && all_zero(h->data(), 4);
    add_problem(check, zeros ? ProblemCode::kZeroFilled : ProblemCode::kMalformed,
                name_of(e) + ": no local header at byte " + std::to_string(e.local_header_offset) +
                    (zeros ? " (zeros)" : ""));
    return false;
  }
  uint64_t name_len = le16(h->data() + 26), extra_len = le16(h->data() + 28);
  r.data_begin = e.local_header_offset + 30 + name_len + extra_len;  // < cd_offset + 2^17
  if (!range_within(r.data_begin, e.compressed_bytes, cd_offset)) {
    add_problem(check, ProblemCode::kMalformed,
                name_of(e) + ": " + std::to_string(e.compressed_bytes) + " bytes of data at byte " +
                    std::to_string(r.data_begin) + " run past the central directory at byte " +
                    std::to_string(cd_offset));
    return false;
  }
  r.data_end = r.data_begin + e.compressed_bytes;
  r.next = r.data_end;
  if (e.flags & 8) {
    // Descriptor: optional signature, CRC, then 4- or 8-byte sizes.
    std::optional<std::span<const uint8_t>> d = view_or_note(src, r.data_end, 4, scratch, check);
    if (!d) return false;
    bool sig = d->size() == 4 && le32(d->data()) == kDescriptorSig;
    bool wide = e.zip64 || e.compressed_bytes >= 0xFFFFFFFFu;
    r.next += (sig ? 4 : 0) + 4 + (wide ? 16 : 8);
  }
  return true;
}

// Checks that records tile the file from byte 0 to the central directory.
void check_tiling(const std::vector<Record>& recs, const ZipDirectory& dir, FileCheck& check) {
  uint64_t expect = 0;
  for (const Record& r : recs) {
    if (r.entry.local_header_offset != expect) {
      add_problem(check, ProblemCode::kSizeMismatch,
                  "records do not tile the file: " + name_of(r.entry) + " starts at byte " +
                      std::to_string(r.entry.local_header_offset) + ", previous record ends at " +
                      std::to_string(expect));
      return;
    }
    expect = r.next;
  }
  if (expect != dir.cd_offset)
    add_problem(check, ProblemCode::kSizeMismatch,
                "records do not tile the file: the last record ends at byte " +
                    std::to_string(expect) + ", the central directory starts at " +
                    std::to_string(dir.cd_offset));
}

// The records by name: sorted pointers, one allocation for the archive (a
// map's node and key copy per record cost more than the rest of a small
// file's check). Of records of the same name the last in file order is
// found.
class RecordsByName {
 public:
  explicit RecordsByName(std::vector<Record>& recs) {
    sorted_.reserve(recs.size());
    for (Record& r : recs) sorted_.push_back(&r);
    std::stable_sort(sorted_.begin(), sorted_.end(), [](const Record* a, const Record* b) {
      return a->entry.name < b->entry.name;
    });
  }
  Record* find(std::string_view name) const {
    auto it =
        std::upper_bound(sorted_.begin(), sorted_.end(), name,
                         [](std::string_view n, const Record* r) { return n < r->entry.name; });
    return it != sorted_.begin() && (*(it - 1))->entry.name == name ? *(it - 1) : nullptr;
  }

 private:
  std::vector<Record*> sorted_;
};

// torch: one prefix, stored records aligned to 64, storage sizes from data.pkl.
void check_torch(const ByteSource& src, const std::string& prefix, std::vector<Record>& recs,
                 FileCheck& check) {
  for (Record& r : recs) {
    const ZipEntry& e = r.entry;
    if (!e.name.starts_with(prefix) || e.name.size() <= prefix.size() ||
        e.name[prefix.size()] != '/')
      return add_problem(check, ProblemCode::kMalformed,
                         name_of(e) + " is outside the archive folder " + prefix + "/");
    if (e.method != 0)
      return add_problem(check, ProblemCode::kMalformed,
                         name_of(e) + " uses compression method " + std::to_string(e.method) +
                             "; torch.save stores records uncompressed");
    if (r.data_begin % 64 != 0)
      return add_problem(check, ProblemCode::kMalformed,
                         name_of(e) + " data at byte " + std::to_string(r.data_begin) +
                             " is not 64-byte aligned as torch.save writes it");
  }
  const RecordsByName by_name(recs);
  std::string name = prefix + "/data.pkl";  // reused for each storage's record name
  Record* pkl = by_name.find(name);         // there is one: torch_prefix found it
  if (pkl->entry.compressed_bytes > kMaxPickleBytes)
    return note_unverifiable(check, "data.pkl of " + std::to_string(pkl->entry.compressed_bytes) +
                                        " bytes is over the " +
                                        std::to_string(kMaxPickleBytes >> 20) +
                                        " MiB limit: storage sizes not checked");
  std::vector<uint8_t> scratch;
  std::optional<std::span<const uint8_t>> bytes =
      view_or_note(src, pkl->data_begin, pkl->entry.compressed_bytes, scratch, check);
  if (!bytes) return;
  PickleScan scan =
      scan_pickle(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), 0,
                  nullptr, PickleStrings::kSkip);
  if (scan.unsupported)
    return note_unverifiable(check, "data.pkl " + *scan.error + ": storage sizes not checked");
  if (!scan.complete) return add_problem(check, ProblemCode::kMalformed, "data.pkl " + *scan.error);
  for (const StorageRef& s : scan.storages) {
    name.assign(prefix).append("/data/").append(s.key);
    Record* record = by_name.find(name);
    if (!record)
      return add_problem(check, ProblemCode::kMalformed,
                         "data.pkl refers to storage " + s.key + " but there is no record " + name);
    record->float_storage = s.is_float;
    record->dtype = s.dtype;
    if (!s.itemsize_bytes) {
      note_unverifiable(check, "storage " + s.key + ": dtype " + s.dtype +
                                   " of unknown item size: its size is not checked");
      continue;
    }
    std::optional<uint64_t> bytes_want = checked_mul(s.numel, *s.itemsize_bytes);
    if (!bytes_want)
      return add_problem(check, ProblemCode::kMalformed,
                         "data.pkl: storage " + s.key + " of " + std::to_string(s.numel) + " x " +
                             s.dtype + " overflows 64 bits");
    uint64_t want = *bytes_want;
    if (record->entry.uncompressed_bytes != want)
      return add_problem(check, ProblemCode::kSizeMismatch,
                         name_of(record->entry) + ": " +
                             std::to_string(record->entry.uncompressed_bytes) +
                             " bytes, data.pkl says " + std::to_string(want) + " (" +
                             std::to_string(s.numel) + " x " + s.dtype + ")");
  }
}

// The first `want` bytes of a member's uncompressed data (fewer if it is
// shorter): read as they are when stored, inflated from at most 2*want+1 KiB
// compressed bytes when deflated. nullopt on an I/O error (noted) or deflate
// data that cannot start (a problem added).
std::optional<std::string> member_head(const ByteSource& src, const Record& r, uint64_t want,
                                       FileCheck& check) {
  const ZipEntry& e = r.entry;
  uint64_t in = std::min(e.compressed_bytes, e.method == 0 ? want : 2 * want + 1024);
  std::optional<std::vector<uint8_t>> raw = read_or_note(src, r.data_begin, in, check);
  if (!raw) return std::nullopt;
  if (e.method == 0) return std::string(raw->begin(), raw->end());
  std::string out(want, '\0');
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return std::string();
  z.next_in = raw->data();
  z.avail_in = static_cast<uInt>(raw->size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(want);
  int rc = inflate(&z, Z_NO_FLUSH);
  out.resize(want - z.avail_out);
  std::string msg = z.msg ? z.msg : "inflate error";
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
    add_problem(check, ProblemCode::kChecksum, name_of(e) + ": deflate data damaged (" + msg + ")");
    return std::nullopt;
  }
  return out;
}

// npz: each member's .npy header (inflated when deflated) must parse and
// agree with the member's size.
void check_npz(const ByteSource& src, std::vector<Record>& recs, FileCheck& check) {
  constexpr uint64_t kFirstRead = 4096, kMaxHeader = (1 << 20) + 12;
  for (Record& r : recs) {
    const ZipEntry& e = r.entry;
    if (e.method != 0 && e.method != 8) {
      note_unverifiable(check, "member " + e.name + ": compression method " +
                                   std::to_string(e.method) + " not supported");
      continue;
    }
    std::optional<std::string> head = member_head(src, r, kFirstRead, check);
    if (!head) return;
    std::optional<uint64_t> end = npy_header_end(*head);
    if (end && *end > head->size() && *end <= kMaxHeader && head->size() == kFirstRead &&
        !(head = member_head(src, r, *end, check)))
      return;
    FileCheck member;
    std::optional<NpyHeader> h = parse_npy_header(*head, e.uncompressed_bytes, member);
    if (member.unverifiable)
      note_unverifiable(check, "member " + e.name + ": " + *member.unverifiable);
    if (!member.problems.empty()) {
      for (Problem& p : member.problems) p.message = "member " + e.name + ": " + p.message;
      check.problems.insert(check.problems.end(), member.problems.begin(), member.problems.end());
      return;
    }
    if (!h || !h->data_bytes) continue;  // unverifiable, noted
    r.member = h;
    uint64_t want = h->data_offset + *h->data_bytes;  // cannot overflow (parse_npy_header)
    if (want != e.uncompressed_bytes)
      return add_problem(check, ProblemCode::kSizeMismatch,
                         "member " + e.name + ": " + std::to_string(e.uncompressed_bytes) +
                             " bytes, its header says " + std::to_string(want));
  }
}

// Deep pass: CRC32 of each record (inflated if deflated) against the
// central directory; zero blocks inside float storages whose CRC failed.
class ZipCrcConsumer : public StreamConsumer {
 public:
  ZipCrcConsumer(std::vector<Record> recs, bool torch) : recs_(std::move(recs)), torch_(torch) {
    std::vector<ZeroBlockScanner::Range> ranges;
    // No labels: these ranges are only asked where each record's zero blocks are.
    ranges.reserve(recs_.size());
    for (const Record& r : recs_) ranges.push_back({r.data_begin, r.data_end, {}});
    zeros_ = std::make_unique<ZeroBlockScanner>(std::move(ranges));
    state_.resize(recs_.size());
  }
  ~ZipCrcConsumer() override {
    for (State& s : state_)
      if (s.inflating) inflateEnd(&s.z);
  }
  void feed(uint64_t offset, const uint8_t* p, size_t n) override;
  void finish(FileCheck& check) override;

 private:
  struct State {
    uint32_t crc = 0;
    uint64_t out_bytes = 0;
    bool inflating = false, inflate_done = false;
    bool closed = false;  // the record's data has all been fed; zlib state freed
    std::optional<std::string> inflate_error;
    z_stream z{};
  };
  void inflate_part(State& s, const uint8_t* p, size_t n);

  std::vector<Record> recs_;
  bool torch_;
  std::vector<State> state_;
  size_t first_ = 0;  // the first record whose data has not all been fed
  std::unique_ptr<ZeroBlockScanner> zeros_;
  // Inflated bytes: allocated for the first deflated record (torch stores
  // every record; 64 KiB a file would cost more than its check).
  static constexpr size_t kOutBytes = 64 * 1024;
  std::unique_ptr<uint8_t[]> out_;
};

void ZipCrcConsumer::inflate_part(State& s, const uint8_t* p, size_t n) {
  if (s.closed) return;
  if (!s.inflating) {
    if (inflateInit2(&s.z, -15) != Z_OK) {
      s.inflate_error = "zlib init failed";
      return;
    }
    s.inflating = true;
    if (!out_) out_ = std::make_unique_for_overwrite<uint8_t[]>(kOutBytes);
  }
  if (s.inflate_done || s.inflate_error) return;
  s.z.next_in = const_cast<uint8_t*>(p);
  s.z.avail_in = static_cast<uInt>(n);
  while (s.z.avail_in > 0 && !s.inflate_done) {
    s.z.next_out = out_.get();
    s.z.avail_out = kOutBytes;
    int rc = inflate(&s.z, Z_NO_FLUSH);
    size_t got = kOutBytes - s.z.avail_out;
    s.crc = crc32_update(s.crc, out_.get(), got);
    s.out_bytes += got;
    if (rc == Z_STREAM_END)
      s.inflate_done = true;
    else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      s.inflate_error = s.z.msg ? s.z.msg : "inflate error";
      return;
    }
    if (got == 0 && rc == Z_BUF_ERROR) break;
  }
}

void ZipCrcConsumer::feed(uint64_t offset, const uint8_t* p, size_t n) {
  zeros_->feed(offset, p, n);
  const uint64_t end = offset + n;
  // Records are sorted and tile the file: skip those already done, stop at
  // the first that starts after this chunk (work per chunk, not per record).
  while (first_ < recs_.size() && recs_[first_].data_end <= offset) ++first_;
  for (size_t i = first_; i < recs_.size() && recs_[i].data_begin < end; ++i) {
    const Record& r = recs_[i];
    uint64_t lo = std::max(r.data_begin, offset), hi = std::min(r.data_end, end);
    if (lo >= hi) continue;
    State& s = state_[i];
    if (r.entry.method != 8) {
      s.crc = crc32_update(s.crc, p + (lo - offset), hi - lo);
      continue;
    }
    inflate_part(s, p + (lo - offset), hi - lo);
    if (hi == r.data_end && s.inflating) {  // one zlib state alive at a time
      inflateEnd(&s.z);
      s.inflating = false;
      s.closed = true;
    }
  }
}

void ZipCrcConsumer::finish(FileCheck& check) {
  for (size_t i = 0; i < recs_.size(); ++i) {
    const ZipEntry& e = recs_[i].entry;
    const State& s = state_[i];
    if (e.method == 8 && s.inflate_error) {
      add_problem(check, ProblemCode::kChecksum,
                  name_of(e) + ": deflate data damaged (" + *s.inflate_error + ")");
      continue;
    }
    if (e.method == 8 && (!s.inflate_done || s.out_bytes != e.uncompressed_bytes)) {
      add_problem(check, ProblemCode::kChecksum,
                  name_of(e) + ": inflates to " + std::to_string(s.out_bytes) + " bytes, want " +
                      std::to_string(e.uncompressed_bytes));
      continue;
    }
    if (e.method != 0 && e.method != 8) continue;  // cannot check other methods
    if (torch_ && e.crc32 == 0) continue;          // torch 2.x with CRC32 disabled
    if (s.crc == e.crc32) continue;
    std::string where = name_of(e) + ": CRC32 want " + hex32(e.crc32) + ", got " + hex32(s.crc);
    if (recs_[i].float_storage && zeros_->first_zero_block(i))
      add_problem(check, ProblemCode::kZeroFilled,
                  where + "; " + std::to_string(zeros_->zero_blocks(i)) +
                      " all-zero 4 KiB block(s), the first at byte " +
                      std::to_string(*zeros_->first_zero_block(i)));
    else
      add_problem(check, ProblemCode::kChecksum, where);
  }
}

std::optional<std::string> torch_prefix(const ZipDirectory& dir) {
  for (const ZipEntry& e : dir.entries) {
    size_t slash = e.name.find('/');
    if (slash != std::string::npos && e.name.substr(slash) == "/data.pkl")
      return e.name.substr(0, slash);
  }
  return std::nullopt;
}

bool is_npz(const ZipDirectory& dir) {
  return !dir.entries.empty() &&
         std::all_of(dir.entries.begin(), dir.entries.end(),
                     [](const ZipEntry& e) { return e.name.ends_with(".npy"); });
}

// torch writes little-endian unless its byteorder record (2.x) says "big".
bool torch_big_endian(const ByteSource& src, const std::string& prefix,
                      const std::vector<Record>& recs, FileCheck& check) {
  for (const Record& r : recs) {
    if (r.entry.name != prefix + "/byteorder" || r.entry.compressed_bytes > 16) continue;
    std::optional<std::vector<uint8_t>> b =
        read_or_note(src, r.data_begin, r.entry.compressed_bytes, check);
    return b && std::string(b->begin(), b->end()) == "big";
  }
  return false;
}

// --values: each torch storage (once, however many tensors view it) or npz
// member array of float32/float16/bfloat16; the others are listed.
void zip_value_spans(const ByteSource& src, const std::optional<std::string>& prefix,
                     const std::vector<Record>& recs, FileCheck& check, ValueSpans& values) {
  values.decoded = true;
  bool big = prefix && torch_big_endian(src, *prefix, recs, check);
  for (const Record& r : recs) {
    if (prefix && !r.dtype.empty()) {
      std::optional<FloatLayout> l = torch_float_layout(r.dtype, big);
      std::string key = r.entry.name.substr(r.entry.name.rfind('/') + 1);
      if (l)
        values.ranges.push_back(
            {r.data_begin, r.data_end, *l, "storage " + key + " (" + r.dtype + ")"});
      else
        values.skip(r.dtype);
    } else if (r.member) {
      std::optional<FloatLayout> l = npy_float_layout(r.member->descr);
      std::string label = "member " + r.entry.name + " (" + r.member->descr + ")";
      if (!l)
        values.skip(r.member->descr);
      else if (r.entry.method == 0)
        values.ranges.push_back({r.data_begin + r.member->data_offset, r.data_end, *l, label});
      else
        values.ranges.push_back({r.data_begin, r.data_end, *l, label, true, r.member->data_offset});
    }
  }
}

bool name_ends_with(std::string_view name, std::string_view ext) {
  return name.size() >= ext.size() &&
         std::equal(ext.rbegin(), ext.rend(), name.rbegin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

// A zip that lacks what its format requires is malformed, whatever its
// records' CRCs say: torch.load reads data.pkl first, numpy.load of an .npz
// gives arrays only for .npy members. A generic zip verified intact would be
// a file the loader refuses.
bool required_members_present(std::string_view name, const ZipDirectory& dir,
                              const std::optional<std::string>& prefix, FileCheck& check) {
  if (dir.entries.empty()) {
    add_problem(check, ProblemCode::kMalformed,
                "a zip with no entries (an empty central directory): nothing to load");
    return false;
  }
  if (!prefix && (name_ends_with(name, ".pt") || name_ends_with(name, ".pth") ||
                  name_ends_with(name, ".ckpt"))) {
    add_problem(check, ProblemCode::kMalformed,
                "a torch checkpoint zip without a <folder>/data.pkl record (" +
                    std::to_string(dir.entries.size()) + " records, the first " +
                    dir.entries[0].name + "): torch.load cannot load it");
    return false;
  }
  const bool any_npy = std::any_of(dir.entries.begin(), dir.entries.end(),
                                   [](const ZipEntry& e) { return e.name.ends_with(".npy"); });
  if (!prefix && name_ends_with(name, ".npz") && !any_npy) {
    add_problem(check, ProblemCode::kMalformed,
                "an .npz without arrays: none of its " + std::to_string(dir.entries.size()) +
                    " members is an .npy (the first " + dir.entries[0].name + ")");
    return false;
  }
  return true;
}

}  // namespace

void verify_zip(const ByteSource& src, bool deep, FileCheck& check,
                std::vector<std::unique_ptr<StreamConsumer>>& consumers, ValueSpans* values,
                std::string_view name) {
  check.format = "zip";
  std::optional<ZipDirectory> dir = read_zip_directory(src, check);
  if (!dir) return;
  std::optional<std::string> prefix = torch_prefix(*dir);
  if (prefix)
    check.format = "torch-zip";
  else if (is_npz(*dir))
    check.format = "npz";
  if (!required_members_present(name, *dir, prefix, check)) return;
  std::vector<Record> recs;
  recs.reserve(dir->entries.size());
  for (ZipEntry& e : dir->entries) {  // each moved into its record
    if (e.local_header_offset >= dir->cd_offset) {
      add_problem(check, ProblemCode::kMalformed,
                  name_of(e) + ": local header offset " + std::to_string(e.local_header_offset) +
                      " is past the central directory");
      return;
    }
    Record& r = recs.emplace_back(Record{std::move(e)});
    if (!read_local(src, r.entry, dir->cd_offset, r, check)) return;
  }
  auto by_offset = [](const Record& a, const Record& b) {
    return a.entry.local_header_offset < b.entry.local_header_offset;
  };
  // Writers put the directory in file order: then nothing is moved.
  if (!std::is_sorted(recs.begin(), recs.end(), by_offset))
    std::sort(recs.begin(), recs.end(), by_offset);
  size_t before = check.problems.size();
  check_tiling(recs, *dir, check);
  if (check.problems.size() > before || check.io_error) return;
  if (prefix)
    check_torch(src, *prefix, recs, check);
  else if (check.format == "npz")
    check_npz(src, recs, check);
  if (check.problems.size() > before || check.io_error || !deep) return;
  if (values && (prefix || check.format == "npz"))
    zip_value_spans(src, prefix, recs, check, *values);
  consumers.push_back(std::make_unique<ZipCrcConsumer>(std::move(recs), prefix.has_value()));
}

}  // namespace gt
