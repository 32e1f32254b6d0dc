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
[[ $bad == 0 ]] || fail "layering violated"
