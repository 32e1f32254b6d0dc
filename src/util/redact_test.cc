#include "util/redact.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

std::string nul(std::string s) {
  for (char& c : s)
    if (c == '|') c = '\0';
  return s;
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
  // TOML, INI, Python: spaced, the value quoted.
  EXPECT_EQ(redact_secrets("api_key = \"sk-1\"\nport = 8000\nif key == x:\n").text,
            "api_key = <redacted>\nport = 8000\nif key == x:\n");
}

TEST(Redact, HeadersAndUrls) {
  RedactedText r =
      redact_secrets("curl -H 'Authorization: Bearer abc' https://bob:hunter2@host/x?token=t1&x=1");
  EXPECT_EQ(r.text,
            "curl -H 'Authorization: <redacted>' https://<redacted>@host/x?token=<redacted>&x=1");
  EXPECT_EQ(r.what, (std::vector<std::string>{"Authorization:", "URL userinfo", "token"}));
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

TEST(Redact, APathBeforeAColonIsNoHeader) {
  EXPECT_EQ(redact_secrets("cannot open directory /data/keys: No such file or directory").text,
            "cannot open directory /data/keys: No such file or directory");
  EXPECT_EQ(redact_secrets("/etc/passwd: Not a directory").text, "/etc/passwd: Not a directory");
  EXPECT_EQ(redact_secrets("x-api-key: K2").text, "x-api-key: <redacted>");
}

TEST(Redact, AValueThatStartsWithADashIsStillTheValue) {
  EXPECT_EQ(redact_secrets(nul("s|--api-key|-xDASH1|--password|-x|--port|8000|")).text,
            nul("s|--api-key|<redacted>|--password|<redacted>|--port|8000|"));
  EXPECT_EQ(redact_secrets("s --api-key -xDASH1 --pass -p2 --tp 8").text,
            "s --api-key <redacted> --pass <redacted> --tp 8");
  // A long option after a flag is no value: --no-auth is a flag.
  EXPECT_EQ(redact_secrets(nul("s|--no-auth|--port|1|")).text, nul("s|--no-auth|--port|1|"));
}

TEST(Redact, PemBlocksWhereverTheyStand) {
  const std::string pem =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpemBODY1\nmore2\n-----END RSA PRIVATE KEY-----";
  const std::string in = "s --private-key '" + pem + "' --port 9";
  RedactedText r = redact_secrets(in);
  EXPECT_EQ(r.text.find("MIIEpemBODY1"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("more2"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("--port 9"), std::string::npos) << r.text;
  // Joined by spaces (the report's cmdline), unquoted, and cut short.
  EXPECT_EQ(redact_secrets("--private-key -----BEGIN RSA PRIVATE KEY----- MIIE1 x -----END RSA "
                           "PRIVATE KEY----- --port 9")
                .text,
            "--private-key <redacted> --port 9");
  EXPECT_EQ(redact_secrets(nul("KEY_PEM=-----BEGIN PRIVATE KEY-----MIIcut|PATH=/b|")).text,
            nul("KEY_PEM=<redacted>|PATH=/b|"));
  EXPECT_EQ(
      redact_secrets("x -----BEGIN EC PRIVATE KEY-----\nAAA\n-----END EC PRIVATE KEY-----\n").text,
      "x -----BEGIN EC PRIVATE KEY-----<redacted>-----END EC PRIVATE KEY-----\n");
}

TEST(Redact, UrlUserinfoInAnyForm) {
  EXPECT_EQ(redact_secrets("git clone https://ghp_x@github.com/o/r").text,
            "git clone https://<redacted>@github.com/o/r");
  EXPECT_EQ(redact_secrets("s3://AKIAX:PW@bucket/m").text, "s3://<redacted>@bucket/m");
  EXPECT_EQ(redact_secrets("ssh://bob@host ssh://bob:pw@host").text,
            "ssh://bob@host ssh://<redacted>@host");
}

TEST(Redact, SignatureAndTokenQueryParameters) {
  const std::string url =
      "https://b.s3.amazonaws.com/m?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKcred&"
      "X-Amz-Signature=abcSIG1&X-Amz-Expires=60";
  EXPECT_EQ(redact_secrets(url).text,
            "https://b.s3.amazonaws.com/m?X-Amz-Algorithm=AWS4&X-Amz-Credential=<redacted>&"
            "X-Amz-Signature=<redacted>&X-Amz-Expires=60");
  EXPECT_EQ(redact_secrets("https://a.blob/c?sv=1&sig=SIG2&se=3&key=K4&access_token=T5").text,
            "https://a.blob/c?sv=1&sig=<redacted>&se=3&key=<redacted>&access_token=<redacted>");
  EXPECT_EQ(redact_secrets("https://g/o?X-Goog-Signature=G6").text,
            "https://g/o?X-Goog-Signature=<redacted>");
}

TEST(Redact, HeaderArguments) {
  EXPECT_EQ(
      redact_secrets(nul("curl|-H|Cookie: session=C1; id=2|-H|x-api-key: K2|-H|Accept: a|")).text,
      nul("curl|-H|Cookie: <redacted>|-H|x-api-key: <redacted>|-H|Accept: a|"));
  EXPECT_EQ(redact_secrets("api_key: Y1\nmodel: /m\n").text, "api_key: <redacted>\nmodel: /m\n");
  // Joined by spaces (the report's cmdline): to the next option.
  EXPECT_EQ(redact_secrets("curl -H Cookie: s=C1; t=2 -H x-api-key: K2 --port 8").text,
            "curl -H Cookie: <redacted> -H x-api-key: <redacted> --port 8");
}

TEST(Redact, UserPasswordOptions) {
  EXPECT_EQ(redact_secrets("ExecStartPost=/usr/bin/curl -u admin:PW1 http://x/").text,
            "ExecStartPost=/usr/bin/curl -u <redacted> http://x/");
  EXPECT_EQ(redact_secrets(nul("curl|--user|a:PW2|--proxy-user=b:PW3|")).text,
            nul("curl|--user|<redacted>|--proxy-user=<redacted>|"));
  // A user name alone, a uid:gid: kept.
  for (const char* keep : {"docker run -u 1000:1000 x", "sudo -u nobody x", "x --user bob"})
    EXPECT_EQ(redact_secrets(keep).text, keep);
}

TEST(Redact, TokenShapesUnderAnyName) {
  const std::string in =
      "log: got hf_abcdefghijklmnopqrstu12345 and ghp_ABCDEFGHIJKLMNOPQRSTUV123456 "
      "sk-proj-abcdefghij1234567890 xoxb-1234-abcdefghij AKIAIOSFODNN7EXAMPLE "
      "AIzaSyA1234567890abcdefghijklmnopqrstu";
  EXPECT_EQ(redact_secrets(in).text,
            "log: got <redacted> and <redacted> <redacted> <redacted> <redacted> <redacted>");
  for (const char* keep :
       {"/models/hf_downloads_llama", "/m/sk-long-model-name-instruct", "task-sk-1", "AKIA"})
    EXPECT_EQ(redact_secrets(keep).text, keep);
}

TEST(Redact, SentryAndWebhookVariables) {
  EXPECT_EQ(redact_secrets(nul("SENTRY_DSN=https://k1@o.ingest.sentry.io/1|"
                               "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T/B/W2|"
                               "MODEL_PATH=/m|"))
                .text,
            nul("SENTRY_DSN=<redacted>|SLACK_WEBHOOK_URL=<redacted>|MODEL_PATH=/m|"));
}

TEST(Redact, HarmlessServerOptionsSurvive) {
  const std::string line =
      "vllm serve /models/llama --tokenizer /models/tok --kv-cache-dtype fp8 --key-cache-dtype "
      "fp8 --max-num-batched-tokens 8192 --tp 8 --port 8000 --ssl-keyfile /k.pem "
      "--api-key-file /run/k --session-len 4096";
  EXPECT_EQ(redact_secrets(line).text, line);
}

TEST(Redact, TwiceIsOnce) {
  const std::string in =
      "--api-key -x https://u:p@h/?sig=1 -H 'Cookie: a' -----BEGIN PRIVATE KEY-----\nA\n"
      "-----END PRIVATE KEY----- ghp_ABCDEFGHIJKLMNOPQRSTUV123456 -u a:b";
  const std::string once = redact_secrets(in).text;
  EXPECT_EQ(redact_secrets(once).text, once);
}

TEST(Redact, HostileTextStaysLinear) {
  std::string big;
  for (int i = 0; i < 200000; ++i) big += "-----BEGIN X '\"key\":\"";
  RedactedText r = redact_secrets(big);  // would take minutes if quadratic
  EXPECT_FALSE(r.text.empty());
}

// Issue 48: each redacted name was looked up in the list of names said so
// far, so a log of many distinct secret names (a 3.6 MB kernel log: bundle
// 17 s) cost their square. 100,000 names: minutes before, under a second
// now (bench/json_redact_bench.cc measures it); each still listed once.
TEST(Redact, ManyDistinctNamesAreEachListedOnceInOnePass) {
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "A" + std::to_string(i) + "_TOKEN=x A0_TOKEN=y\n";
  RedactedText r = redact_secrets(big);
  ASSERT_EQ(r.what.size(), 100000u);
  EXPECT_EQ(r.what[0], "A0_TOKEN");
  EXPECT_EQ(r.what[99999], "A99999_TOKEN");
  EXPECT_EQ(r.text.find("=x"), std::string::npos);
}

}  // namespace
}  // namespace gt
