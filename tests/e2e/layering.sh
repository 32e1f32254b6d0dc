# The layering rule (docs/design.md): collectors, checks and renderers
# around plain data, no layer reaching back. Tests (*_test.cc) may cross
# layers: they check the layers together.
source "$(dirname "$0")/common.sh"
cd "$GT_SOURCE_DIR/src"

bad=0
deny() {  # deny DIR PATTERN: no file under DIR includes a header matching PATTERN
  local hits
  hits=$(grep -rnE --exclude="*_test.cc" "#include \"($2)/" "$1" 2>/dev/null || true)
  if [[ -n "$hits" ]]; then
    echo "layering: $1 must not include $2:"
    echo "$hits"
    bad=1
  fi
}
deny model "util|sources|checks|render|cli|free|fleet|serve|data"
deny util "model|sources|checks|render|cli|free|fleet|serve|data"
deny sources "checks|render|cli|free|fleet|serve|collect"
deny collect "render|cli|free|fleet|serve"
deny checks "sources|render|cli|free|fleet|serve"
deny render "sources|checks|cli|free|fleet"
deny history "checks|sources|render|cli|free|fleet|serve|data"
deny holders "util|sources|checks|render|cli|free|fleet|serve|data"
deny watch "cli|free|fleet|serve|render"

# The fleet works on typed reports (issue 20): JSON enters it only through
# report_from_json (render/json_report_read.cc), so fleet/ and the fleet's
# entry in cli/ read no key (a subscript with a string, .value("..."),
# .contains/.at/.count("..."), a type test, get<>, items()) and parse no
# text; building the fleet's own JSON output with initializer lists is fine.
hits=$(grep -rnE --exclude="*_test.cc" \
  '[A-Za-z0-9_)]\["|\.(value|contains|at|count)\("|\.is_[a-z_]+\(\)|\.get<|\.items\(\)|::parse\(|try_parse_json|parse_json' \
  fleet cli/fleet_main.cc 2>/dev/null || true)
if [[ -n "$hits" ]]; then
  echo "layering: fleet/ reads JSON keys (use the typed Report from report_from_json):"
  echo "$hits"
  bad=1
fi
[[ $bad == 0 ]] || fail "layering violated"
