// The terminal under watch's full-screen view: raw keys without echo, the
// alternate screen, the cursor hidden, all undone by restore() (also from
// the destructor), so q, SIGINT and SIGTERM leave the shell as it was.
#pragma once

#include <termios.h>

#include <string>
#include <utility>
#include <vector>

#include "watch/screen.h"

namespace gt {

class Terminal {
 public:
  /// Takes over the terminal on `in_fd`/`out_fd`. Keys come unbuffered and
  /// unechoed; signals (Ctrl-C) still come as signals.
  Terminal(int in_fd, int out_fd);
  ~Terminal() { restore(); }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  /// Leaves the alternate screen, shows the cursor, restores the modes.
  /// Safe to call twice.
  void restore();
  /// Columns and rows: TIOCGWINSZ, else $COLUMNS/$LINES, else 80x24.
  std::pair<int, int> size() const;
  /// Writes the lines over the previous screen (home, each line, erase the
  /// rest of it), styled unless `color` is false. False when the write failed.
  bool draw(const std::vector<ScreenLine>& lines, bool color);

 private:
  int in_fd_, out_fd_;
  bool active_ = false;
  bool have_modes_ = false;
  struct termios saved_ {};
};

/// Writes all of `s` to `fd` (retrying short writes and EINTR).
bool write_all(int fd, const std::string& s);

}  // namespace gt
