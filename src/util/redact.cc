#include "util/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_set>

#include "util/token_shape.h"

namespace gt {
namespace {

constexpr std::string_view kPemBegin = "-----BEGIN";
constexpr std::string_view kPemEnd = "-----END";
constexpr std::string_view kDashes = "-----";

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool is_option_char(char c) { return is_ident(c) || c == '-'; }

bool is_one_of(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }

/// "1000:1000" (docker's uid:gid), never a password.
bool is_numeric_pair(std::string_view v) {
  return std::all_of(v.begin(), v.end(), [](char c) {
    return c == ':' || std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

/// The first `what` at or after a position, remembered: the scan only
/// moves forward, so hostile text (a million unclosed PEM blocks) costs one
/// search, never one per occurrence.
struct NextFind {
  size_t from = std::string_view::npos;
  size_t at = 0;
  size_t find(std::string_view t, std::string_view what, size_t pos) {
    if (from == std::string_view::npos || pos < from ||
        (at != std::string_view::npos && at < pos)) {
      from = pos;
      at = t.find(what, pos);
    }
    return at;
  }
};

/// One pass over the text, writing `out` as it goes.
class Redactor {
 public:
  explicit Redactor(std::string_view text)
      : t_(text), nul_text_(text.find('\0') != std::string_view::npos) {}

  RedactedText run() {
    out_.text.reserve(t_.size());
    while (i_ < t_.size()) {
      if (pem() || header() || url_userinfo() || json_member() || option() || user_option() ||
          token() || assignment())
        continue;
      out_.text += t_[i_++];
    }
    return std::move(out_);
  }

 private:
  /// Each name once, found in constant time: a log of 40,000 distinct
  /// secret names (A1_TOKEN=, A2_TOKEN=, ...) stays one pass.
  void note(std::string what) {
    if (noted_.insert(what).second) out_.what.push_back(std::move(what));
  }

  void redact_to(size_t end, std::string what) {
    if (end <= i_) return;
    out_.text += kRedacted;
    i_ = end;
    note(std::move(what));
  }

  /// Whether the word starting at `at` stands in a NUL-separated list.
  bool in_nul_list(size_t at) const { return nul_text_ && (at == 0 || t_[at - 1] == '\0'); }

  bool word_start() const { return i_ == 0 || !is_option_char(t_[i_ - 1]); }

  /// Where the body of a PEM block starting at `from` ends: at its -----END
  /// line, or (cut short) at the end of its NUL-separated entry or string.
  size_t pem_body_end(size_t from) {
    const size_t end = next_pem_end_.find(t_, kPemEnd, from);
    const size_t nul = next_nul_.find(t_, std::string_view("\0", 1), from);
    if (end != std::string_view::npos && end < nul) return end;
    if (nul != std::string_view::npos) return nul;
    const size_t quote = t_.find_first_of("\"'", from);
    return quote == std::string_view::npos ? t_.size() : quote;
  }

  /// The end of the "-----BEGIN LABEL-----" line at `at` (the label's own
  /// dashes), or at + the marker when it has none.
  size_t pem_label_end(size_t at) const {
    const std::string_view head = t_.substr(at, 80);
    const size_t close = head.find(kDashes, kPemBegin.size());
    const size_t line = head.find_first_of(std::string_view("\n\r\0\\", 4));
    if (close == std::string_view::npos || close > line) return at + kPemBegin.size();
    return at + close + kDashes.size();
  }

  /// The end of a whole PEM block at `at`, its END line included.
  size_t pem_block_end(size_t at) {
    const size_t body_end = pem_body_end(pem_label_end(at));
    if (t_.compare(body_end, kPemEnd.size(), kPemEnd) != 0) return body_end;
    const size_t close = t_.substr(body_end, 80).find(kDashes, kPemEnd.size());
    return close == std::string_view::npos ? body_end + kPemEnd.size()
                                           : body_end + close + kDashes.size();
  }

  /// The end of a value starting at `from`.
  size_t value_end(size_t from, bool nul_list) {
    if (t_.compare(from, kPemBegin.size(), kPemBegin) == 0) return pem_block_end(from);
    if (from < t_.size() && (t_[from] == '"' || t_[from] == '\'') && !nul_list) {
      size_t close = t_.find(t_[from], from + 1);
      return close == std::string_view::npos ? t_.size() : close + 1;
    }
    size_t j = from;
    while (j < t_.size() && t_[j] != '\0' && (nul_list || !is_one_of(t_[j], " \t\n\r\"'\\&"))) ++j;
    return j;
  }

  /// Replaces the value at i_ (if any) and moves past it.
  void replace_value(bool nul_list, const std::string& what) {
    redact_to(value_end(i_, nul_list), what);
  }

  /// Whether a long option (--port, --no-auth=1) starts at `at`: then it is
  /// no value of the option before it. A value such as -x... or
  /// -----BEGIN is one.
  bool long_option_at(size_t at) const {
    if (t_.compare(at, 2, "--") != 0 || at + 2 >= t_.size() ||
        std::islower(static_cast<unsigned char>(t_[at + 2])) == 0)
      return false;
    size_t k = at + 2;
    while (k < t_.size() && (std::islower(static_cast<unsigned char>(t_[k])) != 0 ||
                             std::isdigit(static_cast<unsigned char>(t_[k])) != 0 || t_[k] == '-'))
      ++k;
    return k == t_.size() || t_[k] == '\0' || is_one_of(t_[k], "= \t\n\r\"'\\");
  }

  bool pem() {
    if (t_.compare(i_, kPemBegin.size(), kPemBegin) != 0) return false;
    const size_t body = pem_label_end(i_);
    out_.text += t_.substr(i_, body - i_);
    i_ = body;
    redact_to(pem_body_end(body), "PEM block");
    return true;
  }

  /// "Authorization: ...", "Cookie: ...", "x-api-key: ...", "api_key: ...".
  bool header() {
    if (!word_start() || !is_option_char(t_[i_])) return false;
    // A path's last component ("/data/keys: No such file or directory") is
    // no header name: the reason after it stays.
    if (i_ > 0 && t_[i_ - 1] == '/') return false;
    size_t j = i_;
    while (j < t_.size() && is_option_char(t_[j])) ++j;
    if (j >= t_.size() || t_[j] != ':' || t_.compare(j, 3, "://") == 0) return false;
    const std::string_view name = t_.substr(i_, j - i_);
    if (!is_secret_name(name)) return false;
    out_.text += t_.substr(i_, j + 1 - i_);
    i_ = j + 1;
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t')) out_.text += t_[i_++];
    size_t k = i_;
    // To the end of the line, the NUL-separated entry or the quoted string
    // (an escaped quote or newline inside a JSON string ends it too), or,
    // in a command line joined by spaces, to the next option (" -x").
    while (k < t_.size() && !is_one_of(t_[k], std::string_view("\n\r\"'\0", 5)) &&
           !(t_[k] == '\\' && k + 1 < t_.size() && is_one_of(t_[k + 1], "\"'nrt")) &&
           !(t_[k] == ' ' && k + 2 < t_.size() && t_[k + 1] == '-' &&
             (is_ident(t_[k + 2]) || t_[k + 2] == '-')))
      ++k;
    redact_to(k, std::string(name) + ":");
    return true;
  }

  /// A URL's userinfo: user:password@ and token@ (an ssh user is a name).
  bool url_userinfo() {
    if (t_.compare(i_, 3, "://") != 0) return false;
    size_t j = i_ + 3;
    while (j < t_.size() && !is_one_of(t_[j], std::string_view("/ \t\n\r\"'@\\?#\0", 12))) ++j;
    if (j >= t_.size() || t_[j] != '@' || j == i_ + 3) return false;
    const bool has_password = t_.substr(i_ + 3, j - i_ - 3).find(':') != std::string_view::npos;
    if (!has_password && ssh_like_scheme()) return false;
    out_.text += "://";
    out_.text += kRedacted;
    out_.text += '@';
    i_ = j + 1;
    note("URL userinfo");
    return true;
  }

  /// Whether the scheme before i_ ("ssh" in ssh://) logs in by user name.
  bool ssh_like_scheme() const {
    size_t s = i_;
    while (s > 0 && (std::isalnum(static_cast<unsigned char>(t_[s - 1])) != 0 ||
                     is_one_of(t_[s - 1], "+.-")))
      --s;
    static constexpr std::array<std::string_view, 6> kSsh = {"ssh",     "sftp",    "scp",
                                                             "git+ssh", "ssh+git", "rsync"};
    const std::string_view scheme = t_.substr(s, i_ - s);
    return std::find(kSsh.begin(), kSsh.end(), scheme) != kSsh.end();
  }

  bool option() {
    if (t_.compare(i_, 2, "--") != 0 || !word_start()) return false;
    size_t j = i_ + 2;
    while (j < t_.size() && is_option_char(t_[j])) ++j;
    const std::string_view name = t_.substr(i_ + 2, j - i_ - 2);
    if (name.empty() || !is_secret_name(name)) return false;
    const bool nul_list = in_nul_list(i_);
    const std::string what(t_.substr(i_, j - i_));
    out_.text += what;
    i_ = j;
    if (i_ >= t_.size()) return true;
    if (t_[i_] == '=') {
      out_.text += t_[i_++];
      replace_value(nul_list, what);
    } else if ((t_[i_] == ' ' || t_[i_] == '\0') && i_ + 1 < t_.size() && !long_option_at(i_ + 1)) {
      const bool next_nul = t_[i_] == '\0';
      out_.text += t_[i_++];
      replace_value(next_nul, what);
    }
    return true;
  }

  /// curl's -u/--user/--proxy-user user:password (a uid:gid is kept).
  bool user_option() {
    static constexpr std::array<std::string_view, 4> kNames = {"--proxy-user", "--user", "-u",
                                                               "-U"};
    if (t_[i_] != '-' || !word_start()) return false;
    for (std::string_view n : kNames) {
      const size_t sep = i_ + n.size();
      if (t_.compare(i_, n.size(), n) != 0 || sep + 1 >= t_.size() ||
          !(t_[sep] == ' ' || t_[sep] == '\0' || (t_[sep] == '=' && n[1] == '-')))
        continue;
      const bool nul_list = t_[sep] == '\0' || in_nul_list(i_);
      const size_t end = value_end(sep + 1, nul_list);
      const std::string_view value = t_.substr(sep + 1, end - sep - 1);
      if (value.find(':') == std::string_view::npos || is_numeric_pair(value)) return false;
      out_.text += t_.substr(i_, sep + 1 - i_);
      i_ = sep + 1;
      redact_to(end, std::string(n));
      return true;
    }
    return false;
  }

  /// A well-known token shape at a word's start.
  bool token() {
    if (i_ > 0 && is_ident(t_[i_ - 1])) return false;
    const TokenShape s = token_shape_at(t_, i_);
    if (s.length == 0) return false;
    redact_to(i_ + s.length, "token " + std::string(s.prefix));
    return true;
  }

  /// A JSON member "NAME": "VALUE" with a secret NAME, raw or inside a JSON
  /// string (\"api_key\": \"...\", as an environment variable's JSON is in
  /// report.json): the value up to its closing quote.
  bool json_member() {
    const std::string_view q = t_[i_] == '"' ? "\"" : t_.compare(i_, 2, "\\\"") == 0 ? "\\\"" : "";
    if (q.empty()) return false;
    size_t j = i_ + q.size();
    const size_t name_start = j;
    while (j < t_.size() && is_option_char(t_[j])) ++j;
    const std::string_view name = t_.substr(name_start, j - name_start);
    if (name.empty() || t_.compare(j, q.size(), q) != 0 || !is_secret_name(name)) return false;
    size_t k = j + q.size();
    while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
    if (k >= t_.size() || t_[k] != ':') return false;
    ++k;
    while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
    if (t_.compare(k, q.size(), q) != 0) return false;  // a number, null, an object: kept
    const size_t value_start = k + q.size();
    size_t close = t_.find(q, value_start);
    const size_t nul = next_nul_.find(t_, std::string_view("\0", 1), value_start);
    if (close == std::string_view::npos || (nul != std::string_view::npos && nul < close))
      return false;  // no closing quote within this string
    out_.text += t_.substr(i_, value_start - i_);
    i_ = value_start;
    if (close > i_) redact_to(close, std::string(name));
    return true;
  }

  /// A TOML, INI or Python line's `api_key = "..."` (name ending at
  /// `name_end`): only a quoted value, so `if key == x` stays code.
  bool spaced_assignment(std::string_view name, size_t name_end) {
    size_t k = name_end;
    while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
    if (k == name_end || k + 1 >= t_.size() || t_[k] != '=' || t_[k + 1] == '=') return false;
    size_t v = k + 1;
    while (v < t_.size() && (t_[v] == ' ' || t_[v] == '\t')) ++v;
    if (v >= t_.size() || (t_[v] != '"' && t_[v] != '\'') || !is_secret_name(name)) return false;
    out_.text += t_.substr(i_, v - i_);
    i_ = v;
    redact_to(value_end(v, false), std::string(name));
    return true;
  }

  bool assignment() {
    if (!is_ident(t_[i_]) || std::isdigit(static_cast<unsigned char>(t_[i_])) ||
        (i_ > 0 && is_ident(t_[i_ - 1])))
      return false;
    size_t j = i_;
    while (j < t_.size() && is_ident(t_[j])) ++j;
    const std::string_view name = t_.substr(i_, j - i_);
    if (spaced_assignment(name, j)) return true;
    // Not a NAME= (or not a secret one): copied as it is, scanning goes on
    // after the name (Environment=HF_TOKEN=... finds HF_TOKEN next).
    if (j >= t_.size() || t_[j] != '=' || !is_secret_name(name)) {
      out_.text += name;
      i_ = j;
      return true;
    }
    const bool nul_list = in_nul_list(i_);
    const char quote = i_ > 0 && !nul_list ? t_[i_ - 1] : '\0';
    out_.text += t_.substr(i_, j + 1 - i_);
    i_ = j + 1;
    if (quote == '"' || quote == '\'') {
      // "API_KEY=a b": the quotes around the assignment hold the value.
      size_t close = t_.find(quote, i_);
      if (close == std::string_view::npos) close = t_.size();
      redact_to(close, std::string(name));
      return true;
    }
    replace_value(nul_list, std::string(name));
    return true;
  }

  std::string_view t_;
  bool nul_text_;
  NextFind next_nul_, next_pem_end_;
  size_t i_ = 0;
  RedactedText out_;
  std::unordered_set<std::string> noted_;
};

}  // namespace

RedactedText redact_secrets(std::string_view text) { return Redactor(text).run(); }

}  // namespace gt
