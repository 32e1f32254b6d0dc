// Helpers for the data tests: real fixture bytes, damaged copies, verifying
// bytes in memory.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "data/byte_source.h"
#include "data/formats/zip_reader.h"
#include "data/verify.h"
#include "util/test_util.h"

namespace gt {

/// Bytes of a file under tests/fixtures/real/ (in the repository).
inline std::string real_fixture(const std::string& rel) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fixtures/real/" + rel, std::ios::binary);
  if (!in) ADD_FAILURE() << "fixture missing from tests/fixtures/real: " << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Verifies `bytes` as a file named `name`.
inline FileCheck check_bytes(const std::string& bytes, bool deep,
                             const std::string& name = "data_0.ckpt") {
  MemorySource src(bytes);
  std::vector<uint8_t> buffer;
  return verify_source(src, name, VerifyOptions{deep}, buffer);
}

/// Verifies `bytes` written to a scratch file, through FileSource and its
/// prefetch of head and tail (the path the tool takes).
inline FileCheck check_file_bytes(const std::string& bytes, bool deep,
                                  const std::string& name = "data_0.ckpt") {
  TempTree t;
  t.write("/" + name, bytes);
  std::vector<uint8_t> buffer;
  return verify_path(t.path("/" + name), VerifyOptions{deep}, buffer);
}

/// The first problem's code name, "unverifiable" when there is none but the
/// file could not be fully checked, or "ok".
inline std::string first_code(const FileCheck& c) {
  if (c.io_error) return "io";
  if (c.problems.empty()) return c.unverifiable ? "unverifiable" : "ok";
  return problem_code_name(c.problems.front().code);
}

/// The first problem's message, or the unverifiable reason.
inline std::string first_message(const FileCheck& c) {
  return c.problems.empty() ? c.unverifiable.value_or("") : c.problems.front().message;
}

inline void put_le(std::string& s, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s[at + i] = i < 8 ? char((v >> (8 * i)) & 0xff) : '\0';
}

inline std::string le_bytes(uint64_t v, int bytes) {
  std::string s(bytes, '\0');
  put_le(s, 0, v, bytes);
  return s;
}

/// `zip` rebuilt with one more stored record `name` holding `data`, written
/// as torch.save writes records: flag bit 3 with a data descriptor, the data
/// aligned to 64 bytes by an "FB" extra field of 'Z's. Its central entry
/// comes last, and the file ends in a zip64 EOCD, a locator and an EOCD.
inline std::string zip_with_record(const std::string& zip, const std::string& name,
                                   const std::string& data) {
  MemorySource src(zip);
  FileCheck ignored;
  std::optional<ZipDirectory> dir = read_zip_directory(src, ignored);
  if (!dir) {
    ADD_FAILURE() << "zip_with_record: not a zip";
    return zip;
  }
  const uint64_t off = dir->cd_offset;
  const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(data.data()), data.size());
  size_t pad = (64 - (off + 30 + name.size() + 4) % 64) % 64;
  std::string out = zip.substr(0, off);
  out += "PK\x03\x04" + le_bytes(20, 2) + le_bytes(0x808, 2) + le_bytes(0, 2) + le_bytes(0, 2) +
         le_bytes(0x21, 2) + le_bytes(0, 12) + le_bytes(name.size(), 2) + le_bytes(4 + pad, 2) +
         name + "FB" + le_bytes(pad, 2) + std::string(pad, 'Z') + data + "PK\x07\x08" +
         le_bytes(crc, 4) + le_bytes(data.size(), 4) + le_bytes(data.size(), 4);
  const uint64_t cd = out.size();
  out += zip.substr(dir->cd_offset, dir->cd_bytes);
  out += "PK\x01\x02" + le_bytes(20, 2) + le_bytes(20, 2) + le_bytes(0x808, 2) + le_bytes(0, 2) +
         le_bytes(0, 2) + le_bytes(0x21, 2) + le_bytes(crc, 4) + le_bytes(data.size(), 4) +
         le_bytes(data.size(), 4) + le_bytes(name.size(), 2) + le_bytes(0, 8) + le_bytes(0, 4) +
         le_bytes(off, 4) + name;
  const uint64_t cd_bytes = out.size() - cd, count = dir->entries.size() + 1, z64 = out.size();
  out += "PK\x06\x06" + le_bytes(44, 8) + le_bytes(45, 2) + le_bytes(45, 2) + le_bytes(0, 8) +
         le_bytes(count, 8) + le_bytes(count, 8) + le_bytes(cd_bytes, 8) + le_bytes(cd, 8);
  out += "PK\x06\x07" + le_bytes(0, 4) + le_bytes(z64, 8) + le_bytes(1, 4);
  out += "PK\x05\x06" + le_bytes(0, 4) + le_bytes(count, 2) + le_bytes(count, 2) +
         le_bytes(cd_bytes, 4) + le_bytes(cd, 4) + le_bytes(0, 2);
  return out;
}

/// A copy of the .npy `npy` (v1.0) whose header dict is `dict`, padded with
/// spaces to the original header length.
// A torch zip over 64 KiB (a real speculators file with a 70,000-byte
// record added): FileSource then serves it from a prefetched head and tail,
// and reads the rest with pread.
inline std::string big_torch_zip() {
  return zip_with_record(real_fixture("torch/speculators/data_0.pt"), "data_0/padding",
                         std::string(70000, 'x'));
}

inline std::string npy_with_dict(const std::string& npy, const std::string& dict) {
  size_t hlen = uint8_t(npy[8]) | uint8_t(npy[9]) << 8;
  if (dict.size() + 1 > hlen) ADD_FAILURE() << "npy_with_dict: dict longer than the header";
  std::string header = dict;
  header.resize(hlen - 1, ' ');
  return npy.substr(0, 10) + header + "\n" + npy.substr(10 + hlen);
}

/// Writes `bytes` to tests/fuzz/regressions/<target>/<name> in the source
/// tree when GT_WRITE_REGRESSIONS is set (how the reproducers were made).
inline void save_regression(const std::string& target, const std::string& name,
                            const std::string& bytes) {
  if (!std::getenv("GT_WRITE_REGRESSIONS")) return;
  std::string dir = std::string(GT_SOURCE_DIR) + "/tests/fuzz/regressions/" + target;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

/// A float32 .npy (v1.0) of `n` elements with values 1.0f.
inline std::string make_npy_f32(size_t n) {
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  out += dict;
  for (size_t i = 0; i < n; ++i) out.append("\x00\x00\x80\x3f", 4);
  return out;
}

/// A safetensors file with one F16 tensor "h" of `n` elements (value 1.0)
/// and one I64 tensor "ids" of 4 elements.
inline std::string make_safetensors(size_t n) {
  std::string header =
      "{\"ids\":{\"dtype\":\"I64\",\"shape\":[4],\"data_offsets\":[0,32]},"
      "\"h\":{\"dtype\":\"F16\",\"shape\":[" +
      std::to_string(n) + "],\"data_offsets\":[32," + std::to_string(32 + 2 * n) +
      "]},\"__metadata__\":{\"format\":\"pt\"}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = char((uint64_t(header.size()) >> (8 * i)) & 0xff);
  out += header;
  out.append(32, '\x01');
  for (size_t i = 0; i < n; ++i) out.append("\x00\x3c", 2);
  return out;
}

}  // namespace gt
