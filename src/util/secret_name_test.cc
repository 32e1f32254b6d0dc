#include "util/secret_name.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

TEST(SecretName, NamesThatSaySecret) {
  for (const char* n : {"HF_TOKEN",
                        "OPENAI_API_KEY",
                        "apiKey",
                        "DB_PASSWORD",
                        "MYSQL_PASSWD",
                        "AWS_SECRET_ACCESS_KEY",
                        "api-key",
                        "hf-token",
                        "GOOGLE_CREDENTIALS",
                        "auth",
                        "X_AUTH",
                        "token",
                        "pass",
                        "SENTRY_DSN",
                        "SLACK_WEBHOOK_URL",
                        "X-Amz-Signature",
                        "X-Goog-Signature",
                        "sig",
                        "Cookie",
                        "Authorization",
                        "X-Api-Key",
                        "private-key",
                        "SESSION_SECRET",
                        "AWS_SESSION_TOKEN",
                        "GITHUB_PAT",
                        "access_token",
                        "key",
                        "KEY_PASSPHRASE"})
    EXPECT_TRUE(is_secret_name(n)) << n;
}

TEST(SecretName, ComponentsNotSubstrings) {
  for (const char* n : {"tokenizer",
                        "max-num-batched-tokens",
                        "ssl-keyfile",
                        "CUDA_VISIBLE_DEVICES",
                        "PATH",
                        "model",
                        "author",
                        "kv-cache-dtype",
                        "key-cache-dtype",
                        "tokenizer-mode",
                        "api-key-file",
                        "KEY_PATH",
                        "session-len",
                        "SESSION_TIMEOUT",
                        "SSH_AUTH_SOCK",
                        "XDG_SESSION_TYPE",
                        "AUTH_ENABLED",
                        "compass",
                        "bypass",
                        "api-key-header",
                        "tp",
                        "port"})
    EXPECT_FALSE(is_secret_name(n)) << n;
  EXPECT_FALSE(is_secret_name(""));
  EXPECT_FALSE(is_secret_name("--"));
}

}  // namespace
}  // namespace gt
