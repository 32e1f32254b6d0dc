# Every `$ command` step holding an outside string is one shell word
# (issue 48 item 15): mount points from /etc/fstab with a space (\040), a
# ";", a "$(...)" or a quote come out quoted by util/shell_word.h (the one
# home data steps use), never as `mount /mnt/a;touch x` to paste. Checked on
# every finding's commands and every plan step, in JSON and in the text.
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/missing-mount" "$TMP/scn"
cat >>"$TMP/scn/root/etc/fstab" <<'EOF'
/dev/sdz1 /mnt/a;touch\040/tmp/gt-pwned ext4 defaults 0 2
/dev/sdz2 /mnt/$(touch\040/tmp/gt-pwned) ext4 defaults 0 2
/dev/sdz3 /mnt/it's ext4 defaults 0 2
/dev/sdz4 /mnt/two\040words ext4 defaults 0 2
/dev/sdz5 /mnt/`id` ext4 defaults 0 2
EOF
run "$TMP/scn" --json --sample 0
"$PYTHON" - "$TMP/out" <<'PY' || fail "a step is not shell-safe: $(head -c 3000 "$TMP/out")"
import json, re, shlex, sys
d = json.load(open(sys.argv[1]))
points = ["/mnt/a;touch /tmp/gt-pwned", "/mnt/$(touch /tmp/gt-pwned)", "/mnt/it's",
          "/mnt/two words", "/mnt/`id`"]
cmds = [c for f in d["findings"] for c in f["commands"]] + [c for s in d["plan"] for c in s["commands"]]
said = set()
for c in cmds:
    for p in points:
        if p.split("/")[2][:3] not in c:
            continue
        said.add(p)
        # One word: the shell splits the step with the mount point whole.
        assert p in shlex.split(c), (c, p)
        # Outside single quotes nothing is left that a shell would run.
        bare = re.sub(r"'[^']*'", "", c.replace("'\\''", ""))
        for bad in ("$(", "`", ";", "touch"):
            assert bad not in bare, (c, bad)
assert said == set(points), set(points) - said
PY
# The text shows the same words to paste.
run "$TMP/scn" --sample 0 --wide
expect_out_contains "mount '/mnt/a;touch /tmp/gt-pwned'"
expect_out_contains "mount '/mnt/it'\\''s'"
expect_out_lacks "mount /mnt/a;touch"
exit 0
