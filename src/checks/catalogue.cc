// Lookups in the catalogue's rows (the table is check_catalogue() in
// registry.cc) and the check of the rows against the docs and the alerts.
#include "checks/catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

namespace gt {
namespace {

bool numbered(std::string_view row_id) { return row_id.ends_with(".*"); }

/// The prefix a numbered row's ids share ("gpu.xid.").
std::string_view number_prefix(std::string_view row_id) {
  return row_id.substr(0, row_id.size() - 1);
}

/// The part of `id` after the prefix of the numbered row it belongs to.
std::optional<std::string_view> numbered_suffix(std::string_view id) {
  for (const CheckSpec& c : check_catalogue())
    if (numbered(c.id) && id.starts_with(number_prefix(c.id)) &&
        id.size() > number_prefix(c.id).size())
      return id.substr(number_prefix(c.id).size());
  return std::nullopt;
}

/// Rank of a stage when the finding is not critical.
int stage_rank(PlanStage s) {
  switch (s) {
    case PlanStage::kDriver:
      return 0;
    case PlanStage::kClock:
      return 1;
    case PlanStage::kMounts:
      return 2;
    case PlanStage::kGpu:
    case PlanStage::kHardware:
    case PlanStage::kCuda:
      return 3;
    case PlanStage::kServers:
    case PlanStage::kHolders:
      return 4;
    case PlanStage::kDisk:
      return 5;
    case PlanStage::kData:
      return 6;
    case PlanStage::kTuning:
      return 7;
    case PlanStage::kResume:
      return 8;
    case PlanStage::kUnread:
    case PlanStage::kLast:
      return 9;
  }
  return 9;
}

/// Critical faults come right after the driver and the clock: a GPU's own
/// (lost, missing, a fatal Xid) first, the others beside the mounts.
int critical_rank(PlanStage s) { return s == PlanStage::kGpu ? 1 : 2; }

std::string section_of(const std::string& md, const std::string& anchor) {
  // The heading whose GitHub anchor is `anchor`, up to the next "## ".
  size_t at = 0;
  while ((at = md.find("\n## ", at)) != std::string::npos) {
    const size_t eol = md.find('\n', at + 1);
    std::string a;
    for (char c : md.substr(at + 4, eol - at - 4)) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u) || c == '-') a += static_cast<char>(std::tolower(u));
      if (c == ' ') a += '-';
    }
    if (a == anchor) return md.substr(eol, md.find("\n## ", eol) - eol);
    at = eol;
  }
  return "";
}

/// Each alert's id selector in the rules ("id=\"x\"" or "id=~\"re\""), by name.
std::optional<std::string> alert_block(const std::string& rules, const std::string& name) {
  const size_t at = rules.find("- alert: " + name + "\n");
  if (at == std::string::npos) return std::nullopt;
  const size_t end = rules.find("- alert: ", at + 1);
  return rules.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

/// A row's id as the rules would see it (a number for a ".*" row).
std::string sample_id(const CheckSpec& c) {
  std::string_view id = c.id;
  return numbered(id) ? std::string(number_prefix(id)) + "79" : std::string(id);
}

void check_alert(const CheckSpec& c, const std::string& rules, std::vector<std::string>& out) {
  const std::string alert = c.alert;
  if (alert.starts_with("none: ")) {
    if (alert.size() < 12) out.push_back(fmt::format("{}: alert \"none\" without a reason", c.id));
    return;
  }
  const std::optional<std::string> block = alert_block(rules, alert);
  if (!block) {
    out.push_back(fmt::format("{}: alert {} is not defined in gpu-triage.rules.yml", c.id, alert));
    return;
  }
  // The rule's expression must select the row's id where it selects ids.
  const size_t expr_end = block->find("\n        for:");
  const std::string expr = block->substr(0, expr_end);
  static const std::regex kSel(R"re(\bid(=~|=|!~)"([^"]*)")re");
  bool selects = false, selected = false, excluded = false;
  for (auto m = std::sregex_iterator(expr.begin(), expr.end(), kSel); m != std::sregex_iterator();
       ++m) {
    std::string re = (*m)[2];
    // YAML plain scalars keep the PromQL string's escapes: "\\." is "\.".
    for (size_t p; (p = re.find("\\\\")) != std::string::npos;) re.replace(p, 2, "\\");
    const std::string op = (*m)[1];
    const std::string id = sample_id(c);
    const bool match = op == "=" ? re == id : std::regex_match(id, std::regex(re));
    if (op == "!~") {
      excluded = excluded || match;
    } else {
      selects = true;
      selected = selected || match;
    }
  }
  if (selects && (!selected || excluded))
    out.push_back(fmt::format("{}: alert {} does not select this id", c.id, alert));
}

}  // namespace

const CheckSpec* find_check(std::string_view id) {
  for (const CheckSpec& c : check_catalogue()) {
    std::string_view cid = c.id;
    if (cid == id) return &c;
    if (numbered(cid) && id.starts_with(number_prefix(cid))) return &c;
  }
  return nullptr;
}

std::optional<int> finding_number(std::string_view id) {
  const std::optional<std::string_view> n = numbered_suffix(id);
  if (!n || n->empty() || n->size() > 4 ||
      !std::all_of(n->begin(), n->end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(std::string(*n));
}

PlanStage plan_stage(std::string_view id) {
  const CheckSpec* c = find_check(id);
  return c ? c->stage : PlanStage::kLast;
}

GpuJoin gpu_join(std::string_view id) {
  const CheckSpec* c = find_check(id);
  return c ? c->join : GpuJoin::kApart;
}

RemedyRule remedy_rule(std::string_view id) {
  const CheckSpec* c = find_check(id);
  return c ? c->remedy : RemedyRule::kByCommands;
}

FindingEvent finding_event(std::string_view id) {
  const CheckSpec* c = find_check(id);
  return c ? c->event : FindingEvent::kAlone;
}

int plan_rank(const Finding& f) {
  const PlanStage s = plan_stage(f.id);
  if (s == PlanStage::kMounts && f.severity < Severity::kWarning)
    return stage_rank(PlanStage::kLast);
  if (f.severity == Severity::kCritical) return std::min(stage_rank(s), critical_rank(s));
  return stage_rank(s);
}

bool note_is_step(std::string_view id) { return plan_stage(id) == PlanStage::kUnread; }

bool note_is_step(const Finding& f) {
  return note_is_step(f.id) || (plan_stage(f.id) == PlanStage::kResume && !f.action.empty());
}

std::optional<std::string> kept_as(std::string_view id) {
  const CheckSpec* c = find_check(id);
  if (!c || !*c->kept_as) return std::nullopt;
  std::string words = c->kept_as;
  if (const size_t at = words.find("{}"); at != std::string::npos)
    words.replace(at, 2, std::string(numbered_suffix(id).value_or("")));
  return words;
}

bool kept_by_id(std::string_view id) {
  const CheckSpec* c = find_check(id);
  return c && *c->kept_as && std::string_view(c->kept_as).find("{}") == std::string_view::npos;
}

std::vector<std::string> catalogue_problems(const std::vector<CheckSpec>& rows,
                                            const CatalogueSources& src) {
  std::vector<std::string> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const CheckSpec& c = rows[i];
    const std::string quoted = std::string("`") + c.id + "`";
    for (size_t j = 0; j < i; ++j)
      if (std::string_view(rows[j].id) == c.id) out.push_back(fmt::format("{}: two rows", c.id));
    const std::string section = section_of(src.checks_md, c.anchor);
    if (section.empty())
      out.push_back(fmt::format("{}: docs/checks.md has no section #{}", c.id, c.anchor));
    else if (section.find(quoted) == std::string::npos)
      out.push_back(fmt::format("{}: not documented in docs/checks.md #{}", c.id, c.anchor));
    if (src.man_page.find(std::string(".B ") + c.id + "\n") == std::string::npos)
      out.push_back(fmt::format("{}: not in the man page's FINDINGS", c.id));
    check_alert(c, src.rules_yml, out);
  }
  return out;
}

std::vector<std::string> uncatalogued(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  for (const std::string& id : ids)
    if (!find_check(id) && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

}  // namespace gt
