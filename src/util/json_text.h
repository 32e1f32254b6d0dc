// The one way a JSON value becomes text that leaves the tool (stdout, a
// file, an HTTP answer, a message). nlohmann's dump() throws on a string
// that is not UTF-8 unless told otherwise, and such strings arrive from
// outside all the time: a localized ssh error ("Connexion refus\xe9e"), a
// host or file name, a boot id, a remote hostname. Here each invalid byte
// becomes U+FFFD, so the output is always valid JSON and never a crash.
// tests/e2e/json_dump_helper.sh keeps every other dump() out of src/.
#pragma once

#include <string>

namespace gt {

/// `j` as JSON text; indent < 0 is one line. Invalid UTF-8 is replaced.
template <typename Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gt
