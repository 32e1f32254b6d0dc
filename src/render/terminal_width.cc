#include "render/terminal_width.h"

#include <sys/ioctl.h>

#include <algorithm>
#include <cstdlib>

namespace gt {
namespace {

constexpr int kMaxBelievable = 1000;

std::optional<int> believable(std::optional<int> w) {
  if (!w || *w <= 0 || *w > kMaxBelievable) return std::nullopt;
  return w;
}

std::optional<int> parse_columns(const char* s) {
  if (s == nullptr || *s == '\0') return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (*end != '\0' || v <= 0 || v > kMaxBelievable) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

int table_width_from(std::optional<int> terminal_columns, const char* columns_env) {
  std::optional<int> w = believable(terminal_columns);
  if (!w) w = parse_columns(columns_env);
  return w ? std::max(*w, kMinTableWidth) : kDefaultTableWidth;
}

int table_width(int fd) {
  struct winsize ws {};
  std::optional<int> cols;
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0) cols = ws.ws_col;
  return table_width_from(cols, std::getenv("COLUMNS"));
}

}  // namespace gt
