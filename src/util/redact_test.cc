#include "util/redact.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

std::string nul(std::string s) {
  for (char& c : s)
    if (c == '|') c = '\0';
  return s;
}

TEST(Redact, SecretNames) {
  for (const char* n : {"HF_TOKEN", "OPENAI_API_KEY", "apiKey", "DB_PASSWORD", "MYSQL_PASSWD",
                        "AWS_SECRET_ACCESS_KEY", "api-key", "hf-token", "GOOGLE_CREDENTIALS",
                        "auth", "X_AUTH", "token"})
    EXPECT_TRUE(is_secret_name(n)) << n;
  for (const char* n : {"tokenizer", "max-num-batched-tokens", "ssl-keyfile",
                        "CUDA_VISIBLE_DEVICES", "PATH", "model", "author"})
    EXPECT_FALSE(is_secret_name(n)) << n;
}

TEST(Redact, EnvironEntriesToTheirNul) {
  RedactedText r = redact_secrets(nul("PATH=/usr/bin|HF_TOKEN=hf_abc def|OPENAI_API_KEY=sk-1|"));
  EXPECT_EQ(r.text, nul("PATH=/usr/bin|HF_TOKEN=<redacted>|OPENAI_API_KEY=<redacted>|"));
  EXPECT_EQ(r.what, (std::vector<std::string>{"HF_TOKEN", "OPENAI_API_KEY"}));
}

TEST(Redact, CommandLineOptionsBothForms) {
  RedactedText r = redact_secrets(
      nul("vllm|serve|m|--api-key|sk live 1|--hf-token=hf_x|--max-num-batched-tokens|8192|"));
  EXPECT_EQ(r.text,
            nul("vllm|serve|m|--api-key|<redacted>|--hf-token=<redacted>|--max-num-batched-tokens|"
                "8192|"));
  EXPECT_EQ(r.what, (std::vector<std::string>{"--api-key", "--hf-token"}));
  // Joined by spaces, as the report shows a command line.
  EXPECT_EQ(redact_secrets("\"cmdline\": \"vllm serve m --api-key sk-1 --port 8000\"").text,
            "\"cmdline\": \"vllm serve m --api-key <redacted> --port 8000\"");
  // A flag followed by another option has no value to hide.
  EXPECT_EQ(redact_secrets("x --no-auth --port 1").text, "x --no-auth --port 1");
}

TEST(Redact, UnitFileEnvironment) {
  EXPECT_EQ(redact_secrets("Environment=HF_TOKEN=hf_1 MODE=x\nEnvironment=\"API_KEY=a b\"\n").text,
            "Environment=HF_TOKEN=<redacted> MODE=x\nEnvironment=\"API_KEY=<redacted>\"\n");
  EXPECT_EQ(redact_secrets("export DB_PASSWORD='p w'\n").text, "export DB_PASSWORD=<redacted>\n");
}

TEST(Redact, HeadersAndUrls) {
  RedactedText r =
      redact_secrets("curl -H 'Authorization: Bearer abc' https://bob:hunter2@host/x?token=t1&x=1");
  EXPECT_EQ(
      r.text,
      "curl -H 'Authorization: <redacted>' https://bob:<redacted>@host/x?token=<redacted>&x=1");
  EXPECT_EQ(r.what, (std::vector<std::string>{"Authorization:", "URL password", "token"}));
  // A URL without a password, a port, an e-mail address: unchanged.
  for (const char* keep : {"http://host:8000/v1", "git@github.com:a/b", "ssh://bob@host"})
    EXPECT_EQ(redact_secrets(keep).text, keep);
}

TEST(Redact, JsonMembersRawAndInsideAJsonString) {
  // An environment variable holding JSON, as /proc/PID/environ has it and as
  // report.json carries it (escaped).
  static constexpr char kEnviron[] =
      "CONFIG_JSON={\"api_key\":\"JSONkey77\", \"password\" : \"JSONpw88\", "
      "\"model\":\"llama\"}\0GITHUB_PAT=ghp_PATsecret44\0PATH=/usr/bin";
  RedactedText r = redact_secrets(std::string_view(kEnviron, sizeof kEnviron - 1));
  EXPECT_EQ(r.text.find("JSONkey77"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("JSONpw88"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("ghp_PATsecret44"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\"model\":\"llama\""), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("PATH=/usr/bin"), std::string::npos) << r.text;
  RedactedText e = redact_secrets(R"({"environ": "CFG={\"api_key\": \"JSONkey77\"}"})");
  EXPECT_EQ(e.text.find("JSONkey77"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find(R"(\"api_key\": \"<redacted>\")"), std::string::npos) << e.text;
  // A secret-named member that is not a string is kept (a count, null).
  EXPECT_EQ(redact_secrets(R"({"max_tokens": 12, "key": null})").text,
            R"({"max_tokens": 12, "key": null})");
}

TEST(Redact, NothingSecretNothingChanged) {
  const std::string text = nul("python|-m|vllm.entrypoints.openai.api_server|--tokenizer|t|");
  RedactedText r = redact_secrets(text);
  EXPECT_EQ(r.text, text);
  EXPECT_TRUE(r.what.empty());
}

}  // namespace
}  // namespace gt
