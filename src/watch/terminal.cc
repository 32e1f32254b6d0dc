#include "watch/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace gt {
namespace {

const char* escape_for(LineStyle s) {
  switch (s) {
    case LineStyle::kPlain:
      return "";
    case LineStyle::kHeader:
      return "\x1b[1m";
    case LineStyle::kDim:
      return "\x1b[2m";
    case LineStyle::kOk:
      return "\x1b[32m";
    case LineStyle::kWarning:
      return "\x1b[33m";
    case LineStyle::kCritical:
      return "\x1b[1;31m";
    case LineStyle::kNew:
      return "\x1b[1;7;33m";  // reverse video: a new finding stands out
  }
  return "";
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (*end == '\0' && n > 0 && n < 10000) ? static_cast<int>(n) : 0;
}

}  // namespace

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

Terminal::Terminal(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {
  if (::tcgetattr(in_fd_, &saved_) == 0) {
    have_modes_ = true;
    struct termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);  // ISIG kept: Ctrl-C is SIGINT
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    ::tcsetattr(in_fd_, TCSANOW, &raw);
  }
  // Alternate screen, cursor hidden, screen cleared.
  write_all(out_fd_, "\x1b[?1049h\x1b[?25l\x1b[2J");
  active_ = true;
}

void Terminal::restore() {
  if (!active_) return;
  active_ = false;
  write_all(out_fd_, "\x1b[0m\x1b[?25h\x1b[?1049l");
  if (have_modes_) ::tcsetattr(in_fd_, TCSANOW, &saved_);
}

std::pair<int, int> Terminal::size() const {
  struct winsize ws {};
  if (::ioctl(out_fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
    return {ws.ws_col, ws.ws_row};
  const int cols = env_int("COLUMNS"), rows = env_int("LINES");
  return {cols ? cols : 80, rows ? rows : 24};
}

bool Terminal::draw(const std::vector<ScreenLine>& lines, bool color) {
  std::string out = "\x1b[H";
  for (size_t i = 0; i < lines.size(); ++i) {
    const char* esc = color ? escape_for(lines[i].style) : "";
    out += esc;
    out += lines[i].text;
    if (*esc) out += "\x1b[0m";
    out += "\x1b[K";
    if (i + 1 < lines.size()) out += "\r\n";
  }
  return write_all(out_fd_, out);
}

}  // namespace gt
