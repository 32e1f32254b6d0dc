#include "data/verify.h"

#include <cstdio>

#include "data/format.h"
#include "data/formats/gzip_verifier.h"
#include "data/formats/npy_verifier.h"
#include "data/formats/safetensors_verifier.h"
#include "data/formats/torch_legacy_verifier.h"
#include "data/formats/value_consumer.h"
#include "data/formats/zip_verifier.h"

namespace gt {
namespace {

std::string hex_prefix(std::string_view head) {
  std::string out;
  char b[4];
  for (size_t i = 0; i < std::min<size_t>(head.size(), 8); ++i) {
    std::snprintf(b, sizeof b, "%02x", uint8_t(head[i]));
    out += (i ? " " : "") + std::string(b);
  }
  return out;
}

// Generic checks for the formats without a verifier of their own.
void verify_generic(FileFormat f, std::string_view head, std::string_view name, uint64_t size,
                    FileCheck& check) {
  if (f == FileFormat::kZeroHead) {
    check.problems.push_back(
        {ProblemCode::kZeroFilled, "first " + std::to_string(head.size()) + " bytes are zero" +
                                       (name_expects_signature(name) ? ": no signature" : "")});
  } else if (f == FileFormat::kTar && size % 512 != 0) {
    check.problems.push_back(
        {ProblemCode::kSizeMismatch, "tar archive of " + std::to_string(size) +
                                         " bytes is not a whole number of 512-byte blocks"});
  } else if (f == FileFormat::kOther && name_expects_signature(name)) {
    check.problems.push_back(
        {ProblemCode::kMalformed, "no known signature (starts " + hex_prefix(head) + ")"});
  }
}

// Gzip's deep mode inflates what its quick mode does not (a big file's
// middle): quick mode's recent file gets both checks, the deep one only when
// the quick one found nothing wrong.
FileCheck verify_gzip_then_deep(const ByteSource& src, std::string_view name,
                                const VerifyOptions& opts, std::vector<uint8_t>& buffer) {
  VerifyOptions quick = opts;
  quick.then_deep = false;
  FileCheck check = verify_source(src, name, quick, buffer);
  if (check.io_error || !check.problems.empty()) return check;
  VerifyOptions deep = quick;
  deep.deep = true;
  return verify_source(src, name, deep, buffer);
}

}  // namespace

FileCheck verify_source(const ByteSource& src, std::string_view name, const VerifyOptions& opts,
                        std::vector<uint8_t>& buffer, const std::vector<StreamConsumer*>& extra) {
  FileCheck check;
  std::vector<uint8_t> scratch;
  std::optional<std::span<const uint8_t>> head = view_or_note(src, 0, kSniffBytes, scratch, check);
  if (!head) return check;
  std::string_view hv(reinterpret_cast<const char*>(head->data()), head->size());
  FileFormat f = detect_format(hv, src.size());
  check.format = format_name(f);
  // then_deep in one pass: but for gzip, each format checks the same in both
  // modes and deep mode only adds the stream's consumers when those checks
  // found nothing wrong. So the problems found are the quick check's, and
  // with none the file is streamed: the deep check's result.
  const bool then_deep = opts.then_deep && !opts.deep && !opts.values && extra.empty();
  if (then_deep && f == FileFormat::kGzip) return verify_gzip_then_deep(src, name, opts, buffer);
  std::vector<std::unique_ptr<StreamConsumer>> consumers;
  const bool deep = opts.deep || opts.values || then_deep;
  ValueSpans spans;
  ValueSpans* values = opts.values ? &spans : nullptr;
  switch (f) {
    case FileFormat::kEmpty:
      check.problems.push_back({ProblemCode::kEmpty, "0 bytes"});
      break;
    case FileFormat::kZip:
      verify_zip(src, deep, check, consumers, values, name);
      break;
    case FileFormat::kTorchLegacy:
      verify_torch_legacy(src, deep, check, consumers, values);
      break;
    case FileFormat::kGzip:
      verify_gzip(src, deep, check, consumers);
      break;
    case FileFormat::kNpy:
      verify_npy(src, deep, check, consumers, values);
      break;
    case FileFormat::kSafetensors:
      verify_safetensors(src, deep, check, consumers, values);
      break;
    default:
      verify_generic(f, hv, name, src.size(), check);
  }
  if (check.io_error || (then_deep && !check.problems.empty())) return check;
  check.deep_checked = deep;
  if (auto v = make_value_consumer(std::move(spans), opts.allow_non_finite))
    consumers.push_back(std::move(v));
  std::vector<StreamConsumer*> all(extra.begin(), extra.end());
  for (auto& c : consumers) all.push_back(c.get());
  if (!all.empty() && src.size() > 0)
    stream_source(src, buffer, all, check);
  else
    for (StreamConsumer* c : extra) c->finish(check);
  return check;
}

namespace {

FileCheck io_error_check(std::string message) {
  FileCheck check;
  check.io_error = std::move(message);
  return check;
}

FileCheck verify_opened(Result<std::unique_ptr<FileSource>> src, const std::string& path,
                        const VerifyOptions& opts, std::vector<uint8_t>& buffer,
                        const std::vector<StreamConsumer*>& extra) {
  if (!src) return io_error_check(src.error().message);
  // Small files in one read; big ones: head and tail (where the zip
  // directory is) in one read each.
  if (Status s = (*src)->prefetch(kReadWholeBytes, 4 << 10, 64 << 10); !s)
    return io_error_check(s.error().message);
  size_t slash = path.rfind('/');
  std::string_view name(path);
  if (slash != std::string::npos) name.remove_prefix(slash + 1);
  FileCheck check = verify_source(**src, name, opts, buffer, extra);
  check.size_bytes = (*src)->size();
  check.mtime_unix_s = (*src)->mtime_unix_s();
  check.mtime_nsec = (*src)->mtime_nsec();
  // Read in one or two system calls, a write in between shows in their
  // lengths (size_moved); a file read whole over many calls is stat'ed again.
  const bool long_read = (check.deep_checked || !extra.empty()) && (*src)->size() > kReadWholeBytes;
  check.changed_while_read = long_read ? (*src)->changed_since_open() : (*src)->size_moved();
  return check;
}

}  // namespace

FileCheck verify_path(const std::string& path, const VerifyOptions& opts,
                      std::vector<uint8_t>& buffer, const std::vector<StreamConsumer*>& extra) {
  return verify_opened(FileSource::open(path), path, opts, buffer, extra);
}

FileCheck verify_file(std::unique_ptr<FileSource> file, const std::string& path,
                      const VerifyOptions& opts, std::vector<uint8_t>& buffer,
                      const std::vector<StreamConsumer*>& extra) {
  return verify_opened(std::move(file), path, opts, buffer, extra);
}

}  // namespace gt
