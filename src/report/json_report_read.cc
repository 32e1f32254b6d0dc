// A report read back: its own keys (schema, verdict, findings, plan) here,
// the snapshot's by the descriptions of the model types (model/describe.h,
// json_read.h's Reader), the one list the writer (json_report.cc) follows
// too; the round-trip tests (json_report_read_test.cc,
// tests/e2e/json_round_trip.sh) hold them to each other. Values the writer
// derives (a process's "start_time", "active_names", a plan step's number,
// a MIG device's process_pids) are not read back.
#include "report/json_report_read.h"

#include "history/state_file.h"
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

namespace json_read {

/// The fingerprint under `key` (history/state_file.h's format), or null.
std::optional<Fingerprint> fingerprint_at(const Obj& o, const char* key) {
  const J* f = o.find(key);
  if (!f || f->is_null()) return std::nullopt;
  try {
    return fingerprint_from_json(nlohmann::json(*f));
  } catch (const std::exception& e) {
    fail(o.at(key), e.what());
  }
}

GpuHistory history_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuHistory h;
  o.get("file", h.file);
  o.get("boot_id", h.boot_id);
  o.get("previous_boot_id", h.previous_boot_id);
  o.get("previous_boot_first_unix_s", h.previous_boot_first_unix_s);
  if (const J* b = o.find("boots"))
    read_each(*b, o.at("boots"), h.boots, [](const J& x, const std::string& at) {
      Obj bo(x, at);
      HistoryBoot boot;
      bo.get("boot_id", boot.boot_id);
      bo.get("first_seen_unix_s", boot.first_seen_unix_s);
      bo.get("last_seen_unix_s", boot.last_seen_unix_s);
      boot.first_fingerprint = fingerprint_at(bo, "first_fingerprint");
      boot.last_fingerprint = fingerprint_at(bo, "last_fingerprint");
      return boot;
    });
  if (const J* a = o.find("aer"); a && !a->is_null())
    read_each(*a, o.at("aer"), h.aer, [](const J& x, const std::string& at) {
      Obj ao(x, at);
      AerRecord r;
      ao.get("bus_id", r.bus_id);
      ao.get("boot_id", r.boot_id);
      ao.get("read_unix_s", r.read_unix_s);
      read(x, at, r.totals);  // its totals sit beside its other keys
      return r;
    });
  if (const J* g = o.find("gpus"))
    read_each(*g, o.at("gpus"), h.gpus, [](const J& x, const std::string& at) {
      Obj go(x, at);
      GpuRecord r;
      go.get("uuid", r.uuid);
      if (const J* f = go.find("findings"))
        read_each(*f, go.at("findings"), r.findings, [](const J& y, const std::string& at2) {
          Obj fo(y, at2);
          FindingBoots fb;
          fo.get("id", fb.finding_id);
          fo.get("boot_ids", fb.boot_ids);
          return fb;
        });
      return r;
    });
  return h;
}

}  // namespace json_read

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
