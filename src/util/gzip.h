// Text compressed as gzip (RFC 1952) with zlib: the bundle's redacted bug
// report, and tests that write compressed logs. Inflating lives with the
// readers (sources/kernel_log/compressed.h).
#pragma once

#include <string>
#include <string_view>

namespace gt {

/// `bytes` as one gzip member (deflate level `level`, no file name).
std::string gzip_bytes(std::string_view bytes, int level = 9);

}  // namespace gt
