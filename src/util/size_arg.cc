#include "util/size_arg.h"

#include <cctype>
#include <limits>

namespace gt {

Result<uint64_t> parse_size_bytes(const std::string& text) {
  auto bad = [&](const char* why) {
    return Error{ErrorKind::kMalformed,
                 "'" + text + "' is not a size (" + why + "; e.g. 64MiB, 1GiB, 4096)"};
  };
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (n > (std::numeric_limits<uint64_t>::max() - d) / 10) return bad("too large");
    n = n * 10 + d;
    ++i;
  }
  if (i == 0) return bad("no number");
  std::string unit;
  for (; i < text.size(); ++i)
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  int shift = 0;
  if (unit.empty() || unit == "b")
    shift = 0;
  else if (unit == "k" || unit == "kib")
    shift = 10;
  else if (unit == "m" || unit == "mib")
    shift = 20;
  else if (unit == "g" || unit == "gib")
    shift = 30;
  else if (unit == "t" || unit == "tib")
    shift = 40;
  else
    return bad("unknown unit");
  if (n == 0) return bad("zero");
  if (shift > 0 && n > (std::numeric_limits<uint64_t>::max() >> shift)) return bad("too large");
  return n << shift;
}

}  // namespace gt
