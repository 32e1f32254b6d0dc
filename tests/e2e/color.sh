# Colour only when asked or on a terminal, never with NO_COLOR.
source "$(dirname "$0")/common.sh"

run after-crash --sample 0
if grep -q $'\033' "$TMP/out"; then fail "colour in a pipe"; fi
run after-crash --sample 0 --color
grep -q $'\033\[' "$TMP/out" || fail "--color gave no colour"
run after-crash --sample 0 --no-color
if grep -q $'\033' "$TMP/out"; then fail "--no-color coloured"; fi
# On a terminal (script(1) gives one), NO_COLOR wins.
if command -v script >/dev/null; then
  NO_COLOR=1 script -qec "$WITH_MOCK after-crash $TOOL --sample 0" /dev/null >"$TMP/tty" || true
  if grep -q $'\033\[3' "$TMP/tty"; then fail "NO_COLOR ignored on a terminal"; fi
  script -qec "$WITH_MOCK after-crash $TOOL --sample 0" /dev/null >"$TMP/tty" || true
  grep -q $'\033\[' "$TMP/tty" || fail "no colour on a terminal"
fi
