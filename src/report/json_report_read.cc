// A report read back: its own keys (schema, verdict, findings, plan) here,
// the snapshot's by the descriptions of the model types (model/describe.h,
// json_read.h's Reader), the one list the writer (json_report.cc) follows
// too; the round-trip tests (json_report_read_test.cc,
// tests/e2e/json_round_trip.sh) hold them to each other. Values the writer
// derives (a process's "start_time", "active_names", a plan step's number,
// a MIG device's process_pids) are not read back.
#include "report/json_report_read.h"

#include "report/json_codec.h"
#include "report/json_read.h"
#include "report/json_report.h"
#include "util/json_depth.h"

namespace gt {
namespace {

using namespace json_read;

/// The schema this gpu-triage writes; another is an error, never a guess
/// (a newer one may have changed what a key means).
Result<Unit> check_schema(const Obj& o) {
  std::string schema;
  o.get("schema", schema);
  if (schema != "gpu-triage/report")
    return Error{ErrorKind::kMalformed,
                 "not a gpu-triage report (schema \"" + schema.substr(0, 40) + "\")"};
  int64_t version = 0;
  o.get("schema_version", version);
  if (version != kReportSchemaVersion)
    return Error{ErrorKind::kUnsupported,
                 "report schema version " + std::to_string(version) +
                     (version > kReportSchemaVersion ? ", from a newer gpu-triage" : "") +
                     " (this gpu-triage reads " + std::to_string(kReportSchemaVersion) + ")"};
  return ok_status();
}

/// The word and the findings give the typed verdict: judge() sets it to
/// the worst finding's severity, which "OK" writes for ok and info alike.
/// The findings win over the word: a report that says OK while holding a
/// critical (edited, or written by a broken tool) is critical here.
void read_verdict(const Obj& o, Report& r) {
  std::string word;
  o.get("verdict", word);
  Severity worst = Severity::kOk;
  for (const Finding& f : r.findings) worst = std::max(worst, f.severity);
  if (word == "OK" || word == "INFO")
    r.verdict = worst;
  else if (word == "WARNING")
    r.verdict = std::max(worst, Severity::kWarning);
  else if (word == "CRITICAL")
    r.verdict = Severity::kCritical;
  else if (word == "UNKNOWN") {
    r.could_not_check = true;
    r.verdict = worst;
  } else
    fail(o.at("verdict"), "not a verdict: \"" + word.substr(0, 40) + "\"");
}

/// The keys every report of this schema has held since its first version
/// (docs/json.md), whatever the node: a report without one was cut or
/// edited, and reading the rest as the node would make its absence clean
/// (no "gpus": a node of no GPU judged OK). Other keys may be absent (a
/// newer key in an older report of the same schema).
void require_core_keys(const Obj& o) {
  for (const char* key : {"verdict", "exit_code", "findings", "plan", "nvml", "gpus"})
    if (!o.find(key)) fail(o.at(key), "missing (every report holds it)");
}

/// Says when the findings overruled the report's own verdict word.
void note_overruled_verdict(const Obj& o, Report& r) {
  std::string word;
  o.get("verdict", word);
  const std::string counted = verdict_word(r);
  if (word == "UNKNOWN" || word == counted || (word == "INFO" && counted == "OK")) return;
  r.snapshot.warnings.push_back("the report says " + word + " but holds a " +
                                severity_name(r.verdict) + " finding: counted " + counted);
}

}  // namespace

Result<Report> report_from_json(const nlohmann::ordered_json& j) {
  try {
    Obj o(j, "report");
    if (j.is_null()) return Error{ErrorKind::kMalformed, "not a gpu-triage report (null)"};
    if (Result<Unit> s = check_schema(o); !s) return s.error();
    require_core_keys(o);
    Report r;
    o.get("findings", r.findings);
    read_verdict(o, r);
    o.get("exit_code", r.exit_code);
    o.get("plan", r.plan);
    read(j, "report", r.snapshot);
    note_overruled_verdict(o, r);
    return r;
  } catch (const ReadError& e) {
    return Error{ErrorKind::kMalformed, e.message};
  }
}

Result<Report> report_from_json_text(std::string_view text) {
  std::string why;
  std::optional<nlohmann::ordered_json> j =
      try_parse_json<nlohmann::ordered_json>(text, why, kMaxJsonDepth, DuplicateKeys::kRefused);
  if (!j) return Error{ErrorKind::kMalformed, "not JSON: " + why.substr(0, 200)};
  return report_from_json(*j);
}

}  // namespace gt
