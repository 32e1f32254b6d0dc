// Helpers for the data tests: real fixture bytes, damaged copies, verifying
// bytes in memory.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "data/byte_source.h"
#include "data/verify.h"

namespace gt {

/// Bytes of a file under shared/fixtures/real/ (GT_SOURCE_DIR/../shared).
inline std::string real_fixture(const std::string& rel) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/../shared/fixtures/real/" + rel,
                   std::ios::binary);
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

/// The first problem's code name, or "ok".
inline std::string first_code(const FileCheck& c) {
  if (c.io_error) return "io";
  return c.problems.empty() ? "ok" : problem_code_name(c.problems.front().code);
}

inline std::string first_message(const FileCheck& c) {
  return c.problems.empty() ? "" : c.problems.front().message;
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
