// Redaction of the secrets GPU servers carry on their command lines, in
// their environments, unit files and logs (HF tokens, API keys, object-store
// keys, webhook URLs): the one rule for every text that leaves gpu-triage
// (issues 37 and 47). util/json_text.h applies it to every string of every
// JSON document, util/terminal_text.h to every outside string a text
// renderer or Prometheus label shows, and the bundle to every member it
// copies (the bug report decompressed). One pass over any text: a /proc
// environ or cmdline (NUL-separated), a unit file, a log, a report.
// Replaced by "<redacted>", the name kept (names: util/secret_name.h):
//   - NAME=VALUE with a secret NAME: environ entries, unit files'
//     Environment=, shell lines, URL query parameters (?sig=, ?token=,
//     X-Amz-Signature=);
//   - --NAME VALUE and --NAME=VALUE with a secret NAME, whatever the
//     value's first character (--api-key -x...); the next word is no value
//     only when it is itself a long option (--no-auth --port 1);
//   - -u, --user and --proxy-user values holding user:password;
//   - a header or YAML member "NAME: VALUE" with a secret NAME
//     (Authorization:, Cookie:, X-Api-Key:, api_key:), to the end of its
//     line or string;
//   - a URL's userinfo, user:password@ and token@ alike (an ssh:// user
//     name is kept);
//   - a JSON member "NAME": "VALUE" with a secret NAME, raw or escaped
//     inside a JSON string (an environment variable holding JSON);
//   - the body of a PEM block (-----BEGIN ... -----END), to its END line
//     or, cut short, to the end of its value;
//   - a well-known token shape anywhere (util/token_shape.h).
// A value in a NUL-separated text (environ, cmdline) runs to the next NUL;
// elsewhere to a space, a quote, a backslash, '&' or the line's end, and a
// quoted value to its closing quote. Applying it twice changes nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/secret_name.h"

namespace gt {

inline constexpr std::string_view kRedacted = "<redacted>";

struct RedactedText {
  std::string text;
  /// What was redacted, each once, in order: the name ("HF_TOKEN",
  /// "--api-key", "Authorization:") or the rule ("URL userinfo", "PEM
  /// block", "token ghp_"). Never a value.
  std::vector<std::string> what;
};

/// `text` with every secret value replaced by <redacted>.
RedactedText redact_secrets(std::string_view text);

}  // namespace gt
