// The one way a JSON value becomes text that leaves the tool (stdout, a
// file, an HTTP answer, a message). nlohmann's dump() throws on a string
// that is not UTF-8 unless told otherwise, and such strings arrive from
// outside all the time: a localized ssh error ("Connexion refus\xe9e"), a
// host or file name, a boot id, a remote hostname. Here each invalid byte
// becomes U+FFFD, so the output is always valid JSON and never a crash.
// Every string value passes through the redaction rule (util/redact.h,
// issue 47) first: a command line, a model URL or an environment variable
// leaves in a report, an HTTP answer, a bundle or the record across boots
// without its secrets.
// tests/e2e/json_dump_helper.sh keeps every other dump() out of src/.
#pragma once

#include <string>

#include "util/redact.h"

namespace gt {

/// Replaces every secret in every string value of `j` (names are kept).
template <typename Json>
void redact_json_strings(Json& j) {
  if (j.is_string()) {
    auto& s = j.template get_ref<typename Json::string_t&>();
    s = redact_secrets(s).text;
  } else if (j.is_structured()) {
    for (auto& v : j) redact_json_strings(v);
  }
}

/// `j` as JSON text, its secrets redacted; indent < 0 is one line. Invalid
/// UTF-8 is replaced.
template <typename Json>
std::string json_text(const Json& j, int indent = -1) {
  Json redacted = j;
  redact_json_strings(redacted);
  return redacted.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gt
