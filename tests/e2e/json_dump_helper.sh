# Text that leaves the tool as JSON goes through one helper (util/json_text.h)
# that replaces invalid UTF-8: a bare nlohmann dump() throws on a host name,
# an ssh error or a boot id that is not UTF-8 and loses the whole report.
# Tests (*_test.cc) may dump: they check values, not output.
source "$(dirname "$0")/common.sh"
cd "$GT_SOURCE_DIR/src"
hits=$(grep -rnE --include="*.cc" --include="*.h" --exclude="*_test.cc" '[.>]dump\(' . |
  grep -v '^./util/json_text.h:' || true)
if [[ -n "$hits" ]]; then
  echo "$hits"
  fail "a JSON dump() outside util/json_text.h (use json_text: it replaces invalid UTF-8)"
fi
