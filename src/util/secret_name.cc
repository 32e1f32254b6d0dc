#include "util/secret_name.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

namespace gt {
namespace {

std::vector<std::string> upper_parts(std::string_view name) {
  std::vector<std::string> parts(1);
  for (char c : name) {
    if (c == '-' || c == '_') {
      if (!parts.back().empty()) parts.emplace_back();
    } else {
      parts.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  if (parts.back().empty()) parts.pop_back();
  return parts;
}

bool is_secret_part(const std::string& part) {
  static constexpr std::array<std::string_view, 14> kEndings = {
      "TOKEN", "KEY",           "SECRET", "PASSWORD", "PASSWD",    "PASSPHRASE", "CREDENTIAL",
      "AUTH",  "AUTHORIZATION", "COOKIE", "SESSION",  "SIGNATURE", "DSN",        "WEBHOOK"};
  // Whole parts only: short words that end many harmless ones (BYPASS,
  // COMPASS), and the plurals.
  static constexpr std::array<std::string_view, 10> kWhole = {
      "PASS",    "PAT",       "SIG",         "PRIVATE", "KEYS",
      "SECRETS", "PASSWORDS", "CREDENTIALS", "COOKIES", "WEBHOOKS"};
  for (std::string_view w : kEndings)
    if (part.ends_with(w)) return true;
  return std::find(kWhole.begin(), kWhole.end(), part) != kWhole.end();
}

/// A last component that names something about a secret, not the secret.
bool is_qualifier(const std::string& part) {
  static constexpr std::array<std::string_view, 24> kQualifiers = {
      "TYPE",  "DTYPE",  "MODE",   "LEN",  "LENGTH", "SIZE",    "FILE",    "PATH",
      "DIR",   "NAME",   "HEADER", "ENV",  "VAR",    "TIMEOUT", "TTL",     "COUNT",
      "LIMIT", "FORMAT", "BITS",   "SOCK", "PORT",   "HOST",    "ENABLED", "DISABLED"};
  return std::find(kQualifiers.begin(), kQualifiers.end(), part) != kQualifiers.end();
}

}  // namespace

bool is_secret_name(std::string_view name) {
  const std::vector<std::string> parts = upper_parts(name);
  if (parts.empty() || is_qualifier(parts.back())) return false;
  return std::any_of(parts.begin(), parts.end(), is_secret_part);
}

}  // namespace gt
