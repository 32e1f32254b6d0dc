// ANSI colour for the human report (render/table_report.cc and the first
// screen, render/first_screen.cc): on only on a terminal, never with NO_COLOR
// (the caller decides); off, text passes unchanged.
#pragma once

#include <string>

#include "model/finding.h"

namespace gt {

inline constexpr const char* kRed = "\033[31m";
inline constexpr const char* kYellow = "\033[33m";
inline constexpr const char* kGreen = "\033[32m";
inline constexpr const char* kBold = "\033[1m";
inline constexpr const char* kReset = "\033[0m";

class Painter {
 public:
  explicit Painter(bool on) : on_(on) {}
  std::string operator()(const std::string& s, const char* code) const {
    return on_ ? std::string(code) + s + kReset : s;
  }

 private:
  bool on_;
};

/// A severity's colour: red critical, yellow warning, green ok, none else.
inline const char* severity_color(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return kRed;
    case Severity::kWarning:
      return kYellow;
    case Severity::kOk:
      return kGreen;
    default:
      return kReset;
  }
}

}  // namespace gt
