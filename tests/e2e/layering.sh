# The layering rule (docs/design.md): collectors, checks and renderers
# around plain data, no layer reaching back. Tests (*_test.cc) may cross
# layers: they check the layers together.
source "$(dirname "$0")/common.sh"
cd "$GT_SOURCE_DIR/src"

bad=0
flag() {  # flag MESSAGE HITS: reports the hits of one rule, if any
  [[ -z "$2" ]] && return 0
  echo "layering: $1"
  echo "$2"
  bad=1
}
deny() {  # deny DIR PATTERN [EXCEPT]: no file under DIR includes a header matching
  local hits  # PATTERN, except headers matching the regex EXCEPT
  hits=$(grep -rnE --exclude="*_test.cc" "#include \"($2)/" "$1" 2>/dev/null |
    grep -vE "#include \"(${3:-^$})\"" || true)
  if [[ -n "$hits" ]]; then
    echo "layering: $1 must not include $2:"
    echo "$hits"
    bad=1
  fi
}
deny model "util|sources|checks|render|cli|free|fleet|serve|data"
deny util "model|sources|checks|render|cli|free|fleet|serve|data"
deny sources "checks|render|cli|free|fleet|serve|collect"
deny collect "checks|render|cli|free|fleet|serve"
deny checks "sources|render|cli|free|fleet|serve"
# render/ prints free's plan and outcome: it reads those two typed results
# (as it reads model/), never free's planning or acting.
deny render "sources|checks|cli|free|fleet" "free/free_plan\.h|free/free_act\.h|checks/catalogue\.h"
# The check catalogue (checks/catalogue.h) is data about findings: every
# layer may read a finding's row.
deny history "checks|sources|render|cli|free|fleet|serve|data" "checks/catalogue\.h"
# holders/stop.cc builds the plan's commands: their words from outside (an
# owner's name, a wrapper's command line) go through the one quoting
# function (util/shell_word.h, with for_terminal).
deny holders "util|sources|checks|render|cli|free|fleet|serve|data" "util/shell_word\.h|util/terminal_text\.h"
deny watch "cli|free|fleet|serve|render"
# The bundle's writer (issue 37) reads files and writes the archive; the
# command line renders its documents and judges.
deny bundle "checks|render|cli|free|fleet|serve|collect|watch|history"

# One resolver for paths inside --root (issue 51): resolve_in_root
# (util/path_in_root.h), through which FsRoot's readers resolve too. Nothing
# else joins the root and a path as text: FsRoot::path is called only in
# util/ and where a path that resolver returned goes to a system call taking
# a host path (statvfs, sources/fs/disk_usage.cc).
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  '\broot_?\.path\(|\.root\(\)\s*\+\s*[a-z"]' . |
  grep -vE '^\./util/(fs_root|path_in_root)\.(cc|h):|^\./sources/fs/disk_usage\.cc:' || true)
flag "the root joined to a path as text (resolve with util/path_in_root.h or FsRoot's readers):" "$hits"
# The report's codec (issue 51): report/ writes and reads the report's JSON;
# render/ renders and reads nothing: no reader of report/ and no JSON parse.
hits=$(grep -rnE --exclude="*_test.cc" '#include "report/(json_read|json_report_read)\.h"|json_read::|::parse\(|try_parse_json' render 2>/dev/null || true)
flag "render/ reads (reading belongs to report/):" "$hits"
deny report "sources|checks|render|cli|free|fleet|serve|collect|watch|data|holders|bundle" "checks/catalogue\.h"
# Every origin enters in collect/ (issue 51): the command line names it
# (collect/origin.h) and builds no collector table, reads no saved report
# and opens no archive itself.
hits=$(grep -rnE --exclude="*_test.cc" \
  '#include "report/json_report_read\.h"|report_from_json|collect_with\(|run_collectors\(|read_archive\(' cli |
  grep -vE '^[^:]+:[0-9]+:\s*//' || true)
flag "cli/ assembles an origin (collect/ does, collect/origin.h):" "$hits"
# Only collect/ assembles a snapshot (issue 51 item 3): the fleet (fleet/)
# and the command line (cli/) run no pipeline (collect_with, run_collectors),
# build no table of collectors (the Collector type) and lay out no scratch
# tree to read as a root (mkdtemp, ScratchDir); fleet/ reads no root
# (FsRoot) and no report (report/'s reader): a fleet host's gathered answer
# is collect/gathered.h's, its native answer and a saved report
# collect/origin.h's. Comments skipped.
assembly='\bcollect_with\(|\brun_collectors\(|\bCollector\b|\bmkdtemp\(|\bScratchDir\b'
hits=$( (grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" "$assembly" cli
  grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
    "$assembly|\bFsRoot\b|#include \"report/json_report_read\.h\"|report_from_json" fleet) |
  grep -vE '^[^:]+:[0-9]+:\s*//' || true)
flag "fleet/ or cli/ assembles a snapshot (only collect/ does: collect/gathered.h, collect/origin.h):" "$hits"
# Nor does any other layer run the pipeline's table: a watch tick is
# collect/collect.h's collect_tick (watch/ hands it its GPU collector).
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  '\bcollect_with\(|\brun_collectors\(|std::vector<Collector>' . |
  grep -v '^\./collect/' | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
flag "a table of collectors run outside collect/:" "$hits"
# The fleet works on typed reports (issue 20): JSON enters it only through
# collect/origin.h (collect_saved_report, collect_saved_report_text, which
# call report/json_report_read.cc), so fleet/ and the fleet's entry in cli/
# read no key (a subscript with a string, .value("..."),
# .contains/.at/.count("..."), a type test, get<>, items()) and parse no
# text; building the fleet's own JSON output with initializer lists is fine.
hits=$(grep -rnE --exclude="*_test.cc" \
  '[A-Za-z0-9_)]\["|\.(value|contains|at|count)\("|\.is_[a-z_]+\(\)|\.get<|\.items\(\)|::parse\(|try_parse_json|parse_json' \
  fleet cli/fleet_main.cc 2>/dev/null || true)
flag "fleet/ reads JSON keys (use the typed Report from report_from_json):" "$hits"
# Verdicts are typed (model/report.h Verdict): no verdict word is compared
# anywhere but where a saved report's words are read back.
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  '(==|!=) *"(OK|INFO|WARNING|CRITICAL|UNKNOWN)"|"(OK|INFO|WARNING|CRITICAL|UNKNOWN)" *(==|!=)' . |
  grep -vE '^\./report/json_report_read[a-z_]*\.cc:' || true)
flag "a verdict word compared as a string (use Verdict, report_verdict):" "$hits"
# render/ owns the output (issue 20 item 4): below it and in the command
# line, nothing writes report content or builds a JSON document for output.
# cli/ parses, calls and prints what render/ returns; data/, free/, history/
# and holders/ compute. Three rules over their non-test files (comments
# skipped):
#   1. no function takes a std::ostream to write into (a renderer's shape);
#   2. stdout is written only with what a render_*() call returns;
#   3. no nlohmann JSON is built (json, ordered_json, J::array, J{...}).
# Allowed, each with its reason (FILE: RULE, matched against "file:text"):
allowed=(
  # The JSON error object of a command that ends before anything is judged
  # (docs/json.md "errors"): part of parsing the command line.
  "cli/usage.cc:json" "cli/usage.cc:stdout"
  # `gpu-triage --version` (and the fleet's): one fixed line, no report.
  "cli/args.cc:stdout" "cli/fleet_args.cc:stdout"
  # The record across boots is a file the tool reads back: its JSON is the
  # storage format (history --json prints it through render/history_render).
  "history/state_file.cc:json" "history/state_file.h:json"
  # Reads the safetensors header (JSON input), builds nothing.
  "data/formats/safetensors_verifier.cc:json"
)
is_allowed() {  # is_allowed FILE RULE
  local a
  for a in "${allowed[@]}"; do [[ "$a" == "$1:$2" ]] && return 0; done
  return 1
}
output_rule() {  # output_rule RULE REGEX [EXCEPT_REGEX]: reports each hit not allowed
  local rule="$1" re="$2" except="${3:-}" line file
  while IFS= read -r line; do
    file="${line%%:*}"
    is_allowed "$file" "$rule" && continue
    [[ -n "$except" ]] && grep -qE "$except" <<<"${line#*:*:}" && continue
    echo "layering: output outside render/ ($rule): $line"
    bad=1
  done < <(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
    --exclude="*test_util.h" "$re" cli data free history holders |
    grep -vE '^[^:]+:[0-9]+:\s*//')
}
output_rule ostream 'std::ostream\s*&'
output_rule stdout 'std::cout\s*<<|<<\s*std::cout|std::printf|fmt::print\(|std::puts|\bputs\(|fprintf\(stdout' \
  'std::cout << \(?[^<]*\brender_[a-z_]+\('
output_rule json 'nlohmann::|ordered_json|\bJ::(array|object)|\bJ\{'
# The typed model (issue 20 item 3): the NVML init outcome, the recovery
# action and the fabric state / health summary are enums (model/nvml_init.h,
# model/driver_recovery.h, model/fabric_state.h). Only their name and parse
# functions and the readers and writers of text (the report's JSON,
# nvidia-smi's words and error texts, NVML's return names) hold their
# words: nowhere else is one of these fields compared with, set to, or
# defaulted to one of those words as a string literal.
words='none|gpu_reset|node_reboot|drain_p2p|drain_and_reset|bus_reset|system_reboot|unknown'
words+='|not_supported|not_started|in_progress|completed|healthy|unhealthy|limited_capacity'
words+='|LIBRARY_NOT_FOUND|LIBRARY_UNUSABLE|TIMEOUT|NVML_ERROR_[A-Z_]+'
field='(init_error|\binit|\baction|\bstate|health_summary)'
typed_readers='^\./(model/(driver_recovery|fabric_state|nvml_init)\.cc|report/json_(report|report_read|read)\.(cc|h)|sources/smi_xml/smi_(words|text)\.cc|sources/nvml/nvml_api\.cc):'
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  "$field\)?\s*(==|!=|=)\s*\"($words)\"|$field\.value_or\(\"($words)\"|\"($words)\"\s*(==|!=)\s*[*]?[A-Za-z_.>-]*$field\b" . |
  grep -vE "$typed_readers" || true)
flag "a typed outcome compared as a string (use its enum; words only in readers/writers):" "$hits"
# The typed model (issue 20 item 3): kernel-log event kind and boot,
# owner kind, mount problem and boot ending are enums with one name function
# each (model/kernel_log_event.h, owner_kind.h, mounts.h, incident.h). Only
# that function and the JSON reader's EnumWords (report/json_read.h, which
# compares through it) hold the words; no non-test file compares one of these
# fields, or a local holding one, with its word. Two regexes: the field's name
# beside a word of any of these enums, and the words no other field uses
# beside any name. No exceptions are needed today; an entry would be
# "FILE:LINE-TEXT-REGEX" with its reason.
words='xid|sxid|fallen-off-bus|current|previous|file|cgroup|containerd|cri-o|docker|kubernetes-pod|podman|slurm-job|systemd-unit|systemd-user-unit|user-session|network|not_mounted|overlay|read_only|wrong_device|abrupt|clean_shutdown|kernel_panic|reboot|unknown'
distinct='sxid|fallen-off-bus|systemd-unit|systemd-user-unit|user-session|kubernetes-pod|slurm-job|not_mounted|wrong_device|clean_shutdown|kernel_panic'
fields='kind|boot|owner_kind|problem|ending'
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" --exclude="*test_util.h" \
  -e "\b($fields)\)?\s*[!=]=\s*\"($words)\"" \
  -e "\"($words)\"\s*[!=]=\s*\*?[A-Za-z_.>-]*\b($fields)\b" \
  -e "[!=]=\s*\"($distinct)\"" -e "\"($distinct)\"\s*[!=]=" . |
  grep -vE '^[^:]+:[0-9]+:\s*//' || true)
flag "a typed model field compared with its word (compare the enum):" "$hits"
# The enums themselves cannot be compared with a string literal (that does
# not compile); what would slip past the rules above is comparing an enum's
# word: the result of a name function (`*_name(...)`, `*_word(...)`) with
# a literal. Nowhere outside tests.
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" --exclude="*test_util.h" \
  '_(name|word)\([^;]*\)\)? *(==|!=) *"|" *(==|!=) *(std::string\()?[a-z_]+_(name|word)\(' . |
  grep -vE '^[^:]+:[0-9]+:\s*//' || true)
flag "an enum's word compared as a string (compare the enum):" "$hits"
# Text from outside reaches a terminal only through util/terminal_text.h
# for_terminal (issues 31 and 32), which the text renderers call, directly
# or through wrap_words (render/text_wrap.h). Three rules over non-test files:
#   1. every file of render/ and watch/ that writes output (an ostream, a
#      render_*() string, the screen's lines) calls it, except the JSON
#      writer and watch/terminal.cc, which draws render_screen's lines;
hits=""
for f in $(grep -lE 'std::ostream\s*&|std::string render_|std::vector<ScreenLine>' \
  render/*.cc watch/*.cc | grep -v '_test\.cc$'); do
  case "$f" in watch/terminal.cc) continue ;; esac
  grep -qE 'for_terminal\(|wrap_words\(' "$f" || hits+="$f"$'\n'
done
flag "a text renderer that does not show outside text through for_terminal:" "${hits%$'\n'}"
#   2. stderr is written only by cli/usage.cc print_error (which escapes), or
#      on a line that calls for_terminal; cmd_data's progress line (numbers)
#      is the one exception;
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  'std::cerr\s*<<|fprintf\(stderr' . | grep -vE '^[^:]+:[0-9]+:\s*//' |
  grep -vE '^\./cli/usage\.cc:|for_terminal\(' |
  grep -vE '^\./cli/cmd_data\.cc:[0-9]+:\s*(if \(shown\) )?std::fprintf\(stderr, "\\r' || true)
flag "stderr written without print_error or for_terminal:" "$hits"
#   3. no other place handles ESC: only that function and the renderers' own
#      colour and screen codes (render/table_report.cc, watch/terminal.cc,
#      cmd_data's progress line) hold it, so no second, partial sanitizer.
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  "x1[bB]|\\\\033|'\\\\e'" . | grep -vE '^[^:]+:[0-9]+:\s*//' |
  grep -vE '^\./(util/terminal_text\.cc|render/painter\.h|watch/terminal\.cc|cli/cmd_data\.cc):' || true)
flag "an escape character outside util/terminal_text.cc and the colour codes:" "$hits"
# Every output passes the one redaction rule (issue 47, util/redact.h).
# JSON leaves only through json_text (json_dump_helper.sh) and outside text
# only through for_terminal (above): each must apply the rule. A Prometheus
# label value is written only by the label writer in render/prometheus.cc,
# through for_terminal. A file leaves only by write_file_atomically from the
# writers listed here, each writing a rendered (redacted) text, and the
# bundle's members pass redact_members before the archive is built.
# src/render/redaction_test.cc feeds a report of secrets to every renderer.
grep -q 'redact_json_strings(redacted);' util/json_text.h ||
  flag "json_text does not redact (util/json_text.h)" "util/json_text.h"
grep -q 'redact_secrets(raw)' util/terminal_text.cc ||
  flag "for_terminal does not redact (util/terminal_text.cc)" "util/terminal_text.cc"
hits=$(grep -nE '=\\""' render/prometheus*.cc | grep -v '_test\.cc:' |
  grep -v 'escape_label_value(for_terminal(labels\[i\]\.second))' || true)
flag "a Prometheus label written without the label writer's for_terminal:" "$hits"
hits=$(grep -rnE --include="*.cc" --exclude="*_test.cc" 'write_file_atomically\(' . |
  grep -vE '^\./util/atomic_file\.cc:' |
  grep -vE '^\./history/state_file\.cc:.*json_text\(|^\./render/textfile\.cc:|^\./bundle/bundle_file\.cc:|^\./cli/cmd_data\.cc:.*manifest_text\(' || true)
flag "a file written that is not a rendered, redacted text (add the writer here with its reason):" "$hits"
grep -q 'if (r.redact) redact_members(entries, m);' cli/bundle_writer.cc ||
  flag "the bundle's members are not redacted before the archive is built" "cli/bundle_writer.cc"
# No std::regex over input that is not bounded by a small cap (issue 32):
# libstdc++'s executor recurses once per character, so one long line (a
# node's nvidia-smi output, a config file, a command line) overflows the
# stack. Such input is parsed by hand. A regex is allowed only inside a
# function listed here, with the cap that bounds its input ("FILE:FUNCTION";
# <regex> may be included where one is). Tests match their own output.
regex_allowed=(
  # The first 512 bytes of an nvidia-smi XML capture (the DOCTYPE line).
  "sources/smi_xml/smi_xml_parser.cc:dtd_version"
  # One alert's expression of the project's own rules file (a few lines,
  # cut at its "for:"), read only by the catalogue's tests.
  "checks/catalogue.cc:check_alert"
)
regex_allowed_in() {  # regex_allowed_in FILE FUNCTION
  local a
  for a in "${regex_allowed[@]}"; do
    [[ "$a" == "$1:$2" || ("$2" == "#include" && "${a%%:*}" == "$1") ]] && return 0
  done
  return 1
}
function_at() {  # function_at FILE LINE: the function defined last at or above LINE
  awk -v n="$2" 'NR <= n && /^[A-Za-z_][^;]*\(/ && !/^(namespace|#)/ { f = $0 } NR == n { print f; exit }' "$1" |
    sed -E 's/\(.*//; s/.*[ *&:]//'
}
while IFS= read -r line; do
  file="${line%%:*}" rest="${line#*:}"
  text="${rest#*:}"
  if [[ "$text" == "#include <regex>"* ]]; then
    func="#include"
  elif [[ "$text" =~ ^[^[:space:]] ]]; then
    func=""  # at namespace scope: in no function, never allowed
  else
    func=$(function_at "$file" "${rest%%:*}")
  fi
  regex_allowed_in "${file#./}" "$func" && continue
  echo "layering: std::regex over input with no small cap (parse by hand; tests/e2e/layering.sh): $line"
  bad=1
done < <(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" \
  'std::(w?regex|w?[sc]match|w?c?sregex_|regex_|basic_regex|match_results|sub_match)|#include <regex>' . |
  grep -vE '^[^:]+:[0-9]+:\s*//' || true)
# refuse_unlisted ARRAY MESSAGE < "FILE:LINE:TEXT" lines: each line no entry
# of ARRAY ("FILE-REGEX:TEXT-REGEX", the reason beside it) allows is a
# violation.
refuse_unlisted() {
  local -n allowed="$1"
  local line a ok
  while IFS= read -r line; do
    ok=0
    for a in "${allowed[@]}"; do
      [[ "${line%%:*}" =~ ^${a%%:*}$ ]] && grep -qE "${a#*:}" <<<"$line" && ok=1
    done
    [[ $ok == 1 ]] && continue
    echo "$2: $line"
    bad=1
  done
}
# No path opened by its text under a root (issue 32): FsRoot::path() joins
# the root and a path as text, so a link in a fixture tree or a fleet host's
# copy (or a ".." in a path from a command line) would be followed on this
# machine. Files are opened, listed and statted through FsRoot's resolving
# readers (read, open, list, stat, resolve) or util/path_in_root.h. A join
# is allowed only where listed, with the reason (FILE:TEXT-REGEX).
root_path_allowed=(
  # The resolver itself: one lstat per component, links read, never followed.
  'util/path_in_root\.cc:root\.path\(here\)'
  # Message text only: the boot id file named in a warning.
  'history/state_file\.cc:root\.path\("/proc/sys/kernel/random/boot_id"\)'
  # Paths already resolved in the root by volume_path (no link left in them).
  'sources/fs/disk_usage\.cc:root\.path\(at->path\)'
  'sources/fs/mount_table\.cc:root\.path\(path\)'
)
refuse_unlisted root_path_allowed \
  "layering: a path under the root joined as text, not resolved in it (use FsRoot::read/open/list/stat/resolve)" \
  < <(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" --exclude="*test_util.h" \
  '\broot_?\.path\(' . | grep -vE '^[^:]+:[0-9]+:\s*//' | sed 's|^\./||' || true)
# A finding is defined in one place, its catalogue row (issue 33): what
# happens to it (plan stage, GPU join, remedy, event joins, the record) is a
# column, never a test of its id. Outside the catalogue no non-test file
# tests an id by prefix or equality (`id.starts_with(`, `id == "`), nor
# compares or prefix-tests a literal of a catalogue family ("gpu.", ...).
# Allowed, with the reason (FILE:TEXT-REGEX):
id_allowed=(
  # os-release's ID ("debian", "opensuse-leap"), not a finding id.
  'checks/pin_advice\.cc:id (==|\.starts_with\() ?"[a-z]+"'
)
families=$(grep -oE '^ *\{"[a-z_]+\.' checks/registry.cc | sed -E 's/^ *\{"//; s/\.$//' | sort -u | paste -sd'|')
[[ -n "$families" ]] || fail "no catalogue rows found in checks/registry.cc"
refuse_unlisted id_allowed \
  "layering: a finding id tested outside the catalogue (use its row, checks/catalogue.h)" \
  < <(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" --exclude="*test_util.h" \
  -e '\bid\.starts_with\(|\bid\)?\s*(==|!=)\s*"|"\s*(==|!=)\s*[A-Za-z_.>-]*\bid\b' \
  -e "(==|!=)\s*\"($families)\.|\"($families)\.[a-z_0-9.*]*\"\s*(==|!=)|starts_with\(\"($families)\." . |
  grep -vE '^\./checks/(catalogue|registry)\.cc:' | grep -vE '^[^:]+:[0-9]+:\s*//' | sed 's|^\./||' || true)
[[ $bad == 0 ]] || fail "layering violated"
