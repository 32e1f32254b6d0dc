# No two files under src/ share a name across folders (issue 20 item 5):
# "incident.h" must say which incident, so an include, a grep hit or a
# debugger's frame names one file. A file's name here is its base name
# without the folder and without .h, .cc or _test.cc: foo.h, foo.cc and
# foo_test.cc in one folder are one concept; foo.h in a second folder is a
# clash, and so is foo.cc there. A test named after its own folder
# (fleet/fleet_test.cc, holders/holders_test.cc) tests the folder as a whole
# and is named by it. GT_NAMES_SRC_DIR points the rule at another tree (to
# see it fail on a planted clash).
source "$(dirname "$0")/common.sh"
src="${GT_NAMES_SRC_DIR:-$GT_SOURCE_DIR/src}"
[[ -d "$src" ]] || fail "no source tree at $src"

# "name folder" per file, each pair once, then the names in two folders.
clashes=$(find "$src" -type f \( -name '*.h' -o -name '*.cc' \) -printf '%f %h\n' |
  awk '{ n = split($2, p, "/"); if ($1 != p[n] "_test.cc") print }' |
  sed -E 's/^([^ ]*)(_test)?\.(h|cc) /\1 /; s/^([^ ]*)_test /\1 /' | sort -u |
  awk '{ dirs[$1] = dirs[$1] " " $2; n[$1]++ }
       END { for (k in n) if (n[k] > 1) print k ":" dirs[k] }' | sort)
if [[ -n "$clashes" ]]; then
  echo "file names shared across folders under $src (rename one; keep the concept clear):"
  echo "$clashes"
  fail "two folders hold a file of the same name"
fi
