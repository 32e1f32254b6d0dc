// Which names say that their value is a secret: an option (--api-key), an
// environment variable (HF_TOKEN), a URL query parameter (X-Amz-Signature),
// a header (Authorization:), a JSON or YAML member ("api_key":). The rule
// matches whole name components (split at '-' and '_', any case), never a
// substring, so what servers carry beside their secrets survives:
//   - secret when a component ends with TOKEN, KEY, SECRET, PASSWORD,
//     PASSWD, PASSPHRASE, CREDENTIAL, AUTH, AUTHORIZATION, COOKIE, SESSION,
//     SIGNATURE, DSN or WEBHOOK (HF_TOKEN, APIKEY, OAUTH, SENTRY_DSN,
//     SLACK_WEBHOOK_URL), or is PASS, PAT, SIG, PRIVATE or a plural
//     (KEYS, SECRETS, PASSWORDS, CREDENTIALS, COOKIES, WEBHOOKS);
//   - but not when the name's last component says the value is something
//     else about the secret: its type, mode, size, file, path, directory,
//     name, header, environment variable, timeout, count, socket, port,
//     host or switch (--key-cache-dtype, KEY_FILE, --api-key-header,
//     SESSION_TIMEOUT, SSH_AUTH_SOCK, XDG_SESSION_TYPE, AUTH_ENABLED).
// --tokenizer, --max-num-batched-tokens, --kv-cache-dtype, --ssl-keyfile
// and AUTHOR are no secret: no component is one of the words above.
#pragma once

#include <string_view>

namespace gt {

/// Whether a variable, option, parameter or header name carries a secret.
bool is_secret_name(std::string_view name);

}  // namespace gt
