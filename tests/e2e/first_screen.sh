# The answer first (issue 52 item 5; render/first_screen.h): on every
# scenario, the first 24 lines of the text report at 80 columns hold the
# verdict, each critical and warning finding's title (clipped to the line
# at most) and the plan's first step, as the report's own "findings" and
# "what to do" sections below say them; no line after the verdict is wider
# than 80 columns.
source "$(dirname "$0")/common.sh"

for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" && "$s" != malformed ]] || continue
  COLUMNS=80 run "$s" --sample 0 --no-state
  "$PYTHON" - "$TMP/out" "$s" <<'PY' || fail "$s: the first screen misses part of the answer"
import re, sys
text, name = open(sys.argv[1]).read(), sys.argv[2]
lines = text.split("\n")
head, problems = lines[:24], []
if not head[0].split()[0] in ("OK", "WARNING", "CRITICAL", "UNKNOWN"):
    problems.append(f"line 1 is not the verdict: {head[0]!r}")
# The no-GPU verdict is one line whatever its width (pdsh and grep read it).
if any(len(l) > 80 for l in lines[1:]):
    problems.append("a line is wider than 80 columns")

def section(title):
    """The lines of a section: from its title line to the next blank line."""
    if title not in lines:
        return []
    at = lines.index(title) + 1
    out = []
    while at < len(lines) and lines[at]:
        out.append(lines[at])
        at += 1
    return out

pressing = [l for l in section("findings")
            if l.startswith("  critical ") or l.startswith("  warning  ")]
for entry in pressing:
    # The severity and the title's first 40 characters (without its [id]).
    start = re.sub(r"\s+\[[a-z0-9_.]+\]$", "", entry)[:11 + 40]
    if not any(l.startswith(start) for l in head):
        problems.append(f"{start.strip()!r}... is not in the first 24 lines")
plan = section("what to do")
if pressing and plan:
    step = plan[0][4:4 + 40]  # " 1. " then the step's text
    if not any(l.startswith("do first") for l in head) or not any(step in l for l in head):
        problems.append(f"the plan's first step ({step!r}...) is not in the first 24 lines")
if problems:
    print(f"{name}: " + "; ".join(problems))
    print("\n".join(head))
    sys.exit(1)
PY
done
