#include "util/redact.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gt {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool is_option_char(char c) { return is_ident(c) || c == '-'; }

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_secret_part(const std::string& part) {
  static constexpr std::array<std::string_view, 7> kWords = {
      "TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"};
  // Whole parts: plurals, and a personal access token (GITHUB_PAT).
  static constexpr std::array<std::string_view, 5> kPlurals = {"KEYS", "SECRETS", "PASSWORDS",
                                                               "CREDENTIALS", "PAT"};
  for (std::string_view w : kWords)
    if (part.ends_with(w)) return true;
  return std::find(kPlurals.begin(), kPlurals.end(), part) != kPlurals.end();
}

bool starts_with_nocase(std::string_view text, size_t i, std::string_view word) {
  if (text.size() - i < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(text[i + k])) != word[k]) return false;
  return true;
}

/// One pass over the text, writing `out` as it goes.
class Redactor {
 public:
  explicit Redactor(std::string_view text)
      : t_(text), nul_text_(text.find('\0') != std::string_view::npos) {}

  RedactedText run() {
    while (i_ < t_.size()) {
      if (header() || url_password() || json_member() || option() || assignment()) continue;
      out_.text += t_[i_++];
    }
    return std::move(out_);
  }

 private:
  void note(std::string what) {
    if (std::find(out_.what.begin(), out_.what.end(), what) == out_.what.end())
      out_.what.push_back(std::move(what));
  }

  /// Whether the word starting at i_ stands in a NUL-separated list.
  bool in_nul_list(size_t at) const { return nul_text_ && (at == 0 || t_[at - 1] == '\0'); }

  /// The end of a value starting at `from`.
  size_t value_end(size_t from, bool nul_list) const {
    if (from < t_.size() && (t_[from] == '"' || t_[from] == '\'') && !nul_list) {
      size_t close = t_.find(t_[from], from + 1);
      return close == std::string_view::npos ? t_.size() : close + 1;
    }
    size_t j = from;
    while (j < t_.size()) {
      const char c = t_[j];
      if (c == '\0') break;
      if (!nul_list && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' ||
                        c == '\\' || c == '&'))
        break;
      ++j;
    }
    return j;
  }

  /// Replaces the value at i_ (if any) and moves past it.
  void replace_value(bool nul_list, const std::string& what) {
    const size_t end = value_end(i_, nul_list);
    if (end == i_) return;
    out_.text += kRedacted;
    i_ = end;
    note(what);
  }

  bool word_start() const { return i_ == 0 || !is_option_char(t_[i_ - 1]); }

  bool header() {
    static constexpr std::string_view kName = "authorization:";
    if (!word_start() || !starts_with_nocase(t_, i_, kName)) return false;
    out_.text += t_.substr(i_, kName.size());
    i_ += kName.size();
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t')) out_.text += t_[i_++];
    size_t j = i_;
    while (j < t_.size() && t_[j] != '\n' && t_[j] != '\r' && t_[j] != '\0' && t_[j] != '"' &&
           t_[j] != '\'')
      ++j;
    if (j > i_) {
      out_.text += kRedacted;
      i_ = j;
      note("Authorization:");
    }
    return true;
  }

  bool url_password() {
    if (t_.compare(i_, 3, "://") != 0) return false;
    size_t j = i_ + 3, colon = std::string_view::npos;
    while (j < t_.size() &&
           std::string_view("/ \t\n\r\"'@\\").find(t_[j]) == std::string_view::npos &&
           t_[j] != '\0') {
      if (t_[j] == ':' && colon == std::string_view::npos) colon = j;
      ++j;
    }
    if (j >= t_.size() || t_[j] != '@' || colon == std::string_view::npos) return false;
    out_.text += t_.substr(i_, colon + 1 - i_);
    out_.text += kRedacted;
    out_.text += '@';
    i_ = j + 1;
    note("URL password");
    return true;
  }

  bool option() {
    if (t_.compare(i_, 2, "--") != 0 || !(i_ == 0 || !is_option_char(t_[i_ - 1]))) return false;
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
    } else if ((t_[i_] == ' ' || t_[i_] == '\0') && i_ + 1 < t_.size() && t_[i_ + 1] != '-') {
      const bool next_nul = t_[i_] == '\0';
      out_.text += t_[i_++];
      replace_value(next_nul, what);
    }
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
    const size_t nul = t_.find('\0', value_start);
    if (close == std::string_view::npos || (nul != std::string_view::npos && nul < close))
      return false;  // no closing quote within this string
    out_.text += t_.substr(i_, value_start - i_);
    out_.text += kRedacted;
    i_ = close;
    note(std::string(name));
    return true;
  }

  bool assignment() {
    if (!is_ident(t_[i_]) || std::isdigit(static_cast<unsigned char>(t_[i_])) ||
        (i_ > 0 && is_ident(t_[i_ - 1])))
      return false;
    size_t j = i_;
    while (j < t_.size() && is_ident(t_[j])) ++j;
    const std::string_view name = t_.substr(i_, j - i_);
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
      if (close > i_) {
        out_.text += kRedacted;
        i_ = close;
        note(std::string(name));
      }
      return true;
    }
    replace_value(nul_list, std::string(name));
    return true;
  }

  std::string_view t_;
  bool nul_text_;
  size_t i_ = 0;
  RedactedText out_;
};

}  // namespace

bool is_secret_name(std::string_view name) {
  size_t start = 0;
  const std::string n = upper(name);
  while (start <= n.size()) {
    size_t end = n.find_first_of("-_", start);
    if (end == std::string::npos) end = n.size();
    if (end > start && is_secret_part(n.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

RedactedText redact_secrets(std::string_view text) { return Redactor(text).run(); }

}  // namespace gt
