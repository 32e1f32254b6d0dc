// Redaction of the secrets GPU servers carry on their command lines and in
// their environments (HF tokens, API keys), for everything `gpu-triage
// bundle` writes (issue 37). One pass over any text: a /proc environ or
// cmdline (NUL-separated), a unit file, a log, a JSON or text report.
// Replaced by "<redacted>", the name kept:
//   - NAME=VALUE where NAME is secret (below): environ entries, unit files'
//     Environment=, shell lines, URL query parameters (?token=...);
//   - --NAME VALUE and --NAME=VALUE where NAME is secret (--api-key,
//     --hf-token, --auth-token);
//   - the value of an "Authorization:" header, to the end of its line or
//     string;
//   - the password of a URL's user:password@;
//   - a JSON member "NAME": "VALUE" where NAME is secret, raw or escaped
//     inside a JSON string (an environment variable holding JSON).
// A name is secret when one of its parts (split at '-' and '_', any case)
// ends with TOKEN, KEY, SECRET, PASSWORD, PASSWD, CREDENTIAL or AUTH, or is
// KEYS, SECRETS, PASSWORDS, CREDENTIALS or PAT: HF_TOKEN, GITHUB_PAT, OPENAI_API_KEY, APIKEY
// and DB_PASSWORD are; --tokenizer, --max-num-batched-tokens and
// --ssl-keyfile (values a replay needs, never secrets) are not.
// A value in a NUL-separated text (environ, cmdline) runs to the next NUL;
// elsewhere to a space, a quote, a backslash, '&' or the line's end, and a
// quoted value to its closing quote.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gt {

inline constexpr std::string_view kRedacted = "<redacted>";

/// Whether a variable or option name carries a secret (see above).
bool is_secret_name(std::string_view name);

struct RedactedText {
  std::string text;
  /// What was redacted, each once, in order: "HF_TOKEN", "--api-key",
  /// "Authorization:", "URL password". Never a value.
  std::vector<std::string> what;
};

/// `text` with every secret value replaced by <redacted>.
RedactedText redact_secrets(std::string_view text);

}  // namespace gt
