// The shapes of well-known credentials, recognised by themselves wherever
// they stand (a log line, a URL path, a value under a harmless name):
//   hf_ (Hugging Face), ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ (GitHub),
//   sk- (OpenAI, Anthropic: sk-proj-, sk-ant-), xoxb- xoxp- xoxa- xoxr-
//   xoxs- (Slack), AKIA and ASIA (AWS access key ids), AIza (Google API).
// Each needs its prefix at the start of a word, a body of the provider's
// characters at least as long as the shortest real one, and a digit in the
// body (or, as random bodies may lack one, AWS's exact length, or both
// cases over 30 characters): a model folder named hf_downloads_llama or
// sk-long-model-name is no token.
#pragma once

#include <cstddef>
#include <string_view>

namespace gt {

struct TokenShape {
  size_t length = 0;        ///< bytes of the token at the position; 0: none
  std::string_view prefix;  ///< which shape ("ghp_"), for the manifest
};

/// The well-known token starting at `at` in `text`, if any (length 0).
/// `at` must start a word: the caller checks the byte before it.
TokenShape token_shape_at(std::string_view text, size_t at);

}  // namespace gt
