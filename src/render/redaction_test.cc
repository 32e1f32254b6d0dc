// Every output path passes what came from outside through the redaction
// rule (issue 47, util/redact.h): one report with a secret in each string
// from outside (a command line, a model URL, a unit name, a finding's title,
// a plan's command), fed to every renderer that writes a report out (the
// table, the line, JSON for stdout, /healthz, the bundle and the record,
// Prometheus for /metrics and --textfile, the bundle's NVML answers).
// None may show a secret; a renderer that prints outside text without
// for_terminal or json_text fails here (tests/e2e/layering.sh refuses the
// other routes: dump() outside json_text, stdout without a render_*()).
#include <gtest/gtest.h>

#include <sstream>

#include "render/bundle_manifest.h"
#include "render/oneline_report.h"
#include "render/prometheus.h"
#include "render/table_report.h"
#include "render/test_snapshot.h"
#include "report/json_report.h"

namespace gt {
namespace redaction_test {

const std::vector<std::string> kSecrets = {"PLANTEDdash1", "PLANTEDs3pw2",   "AKIAPLANTED3EXAMPL",
                                           "PLANTEDsig4",  "PLANTEDcookie5", "PLANTEDpem6",
                                           "PLANTEDcurl7", "PLANTEDtok8"};

/// The test report with a secret in every string from outside.
Report secret_report() {
  Report r = make_test_report();
  NodeSnapshot& s = r.snapshot;
  GpuProcess& p = s.gpus[0].processes->front();
  p.cmdline =
      "python -m sglang.launch_server --api-key -xPLANTEDdash1 --model-path /models/safe-llama "
      "--private-key -----BEGIN PRIVATE KEY-----\nPLANTEDpem6\n-----END PRIVATE KEY----- --tp 8";
  Server& sv = s.servers->front();
  sv.model = "s3://AKIAPLANTED3EXAMPL:PLANTEDs3pw2@bucket/safe-model";
  sv.root_cmdline = "curl -u admin:PLANTEDcurl7 -H 'Cookie: s=PLANTEDcookie5' http://x/";
  sv.owner_name = "srv-https://ghp_PLANTEDtok8abcdefghijklmnopqrst@github.com.service";
  s.warnings.push_back("cannot read https://b/m?X-Amz-Signature=PLANTEDsig4&x=1");
  r.findings[1].title = "server with --api-key -xPLANTEDdash1 is idle";
  r.plan[1].text = "Stop the server at s3://AKIAPLANTED3EXAMPL:PLANTEDs3pw2@bucket/safe-model";
  r.plan[1].commands = {"curl -u admin:PLANTEDcurl7 http://x/stop"};
  return r;
}

void expect_no_secret(const std::string& what, const std::string& out) {
  for (const std::string& s : kSecrets)
    EXPECT_EQ(out.find(s), std::string::npos) << what << " shows " << s << ":\n" << out;
}

TEST(Redaction, EveryRendererOfAReport) {
  const Report r = secret_report();
  for (bool wide : {false, true}) {
    std::ostringstream table;
    render_table(r, TableOptions{wide, false, 100}, table);
    expect_no_secret(wide ? "wide table" : "table", table.str());
  }
  std::ostringstream line, json;
  render_oneline(r, line);
  expect_no_secret("--oneline", line.str());
  render_json(r, json);
  expect_no_secret("JSON", json.str());
  EXPECT_NE(json.str().find("/models/safe-llama"), std::string::npos);
  EXPECT_NE(json.str().find("--tp 8"), std::string::npos);
  const std::string prom = render_prometheus(r, PrometheusContext{});
  expect_no_secret("Prometheus", prom);
  EXPECT_NE(prom.find("model=\"s3://<redacted>@bucket/safe-model\""), std::string::npos) << prom;
  expect_no_secret("nvml.json", render_nvml_answers(r));
}

TEST(Redaction, TheBundleManifestNamesTheRuleNeverTheValue) {
  BundleManifest m;
  m.root = "/srv?sig=PLANTEDsig4";
  m.redactions.push_back({"root/proc/1/cmdline", "--api-key"});
  m.notes.push_back("cannot copy /x?token=PLANTEDtok8");
  const std::string out = render_bundle_manifest(m);
  expect_no_secret("manifest", out);
  EXPECT_NE(out.find("\"what\": \"--api-key\""), std::string::npos) << out;
}

}  // namespace redaction_test
}  // namespace gt
