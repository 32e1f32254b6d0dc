// watch's full-screen view, as plain lines: a pure function of the model,
// the view the keys chose, and the terminal's size, so it has golden tests.
// The terminal layer (terminal.h) only positions, colours and writes them.
//
// Layout (main view), fitted to `width` columns (80 at least; wider
// terminals get longer sparklines):
//   header     host, verdict, GPUs, interval, time watching, event source
//   GPUs       one row each: util % + sparkline, memory % and in use (GiB) +
//              sparkline, power, temperature, state or clock-event reasons
//   servers    from the holder model: kind, model, TP, GPUs
//   data       --data DIR: pace vs previous, ETA; the new bad files (the
//              last one named, relative to DIR) and a stall on rows of
//              their own, so they fit 80 columns
//   new        findings raised since watch started, then recent changes
//   footer     the keys
// The findings view (`f`) lists the findings, then --data DIR's new bad
// files (newest first) and its stalls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "watch/data_follow.h"
#include "watch/watch_model.h"

namespace gt {

enum class ScreenView { kMain, kFindings, kServers, kGpu, kHelp };

enum class LineStyle { kPlain, kHeader, kDim, kOk, kWarning, kCritical, kNew };

struct ScreenLine {
  std::string text;  ///< UTF-8; one column per code point (no wide glyphs used)
  LineStyle style = LineStyle::kPlain;
};

struct ScreenContext {
  ScreenView view = ScreenView::kMain;
  uint32_t gpu = 0;  ///< kGpu: which GPU
  int width = 80, height = 24;
  int64_t now_unix_ms = 0;
  double interval_s = 2;
  std::string events_source;  ///< "kernel log (/dev/kmsg) and NVML events", ...
  const DataFollowProgress* data = nullptr;
  std::string data_dir;
};

/// The screen's lines, at most `height`, none wider than `width` columns.
std::vector<ScreenLine> render_screen(const WatchModel& model, const ScreenContext& ctx);

/// `text` cut to `width` columns (UTF-8 code points), "…" marking a cut.
std::string fit_columns(const std::string& text, int width);

}  // namespace gt
