# Text that is not UTF-8 never costs the fleet its JSON: a localized ssh
# error ("Connexion refus\xe9e"), a host name from the hosts file, a remote
# hostname and a saved report's file name all come out as valid JSON, each
# invalid byte as U+FFFD (the run used to abort on nlohmann's exception).
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
export FAKE_SSH_DIR="$TMP/hosts"
FAKE_SSH="$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh"
b64() { base64 | tr -d '\n'; }
bad_host=$'n\xe9ud1'
mkdir -p "$FAKE_SSH_DIR/$bad_host" "$FAKE_SSH_DIR/refused"
{
  echo "@@gt-gather 1"
  echo "@@gt-out nvidia-smi 0 $(b64 <"$XML/netdata-rtx-4090-535.86.05.xml")"
  echo "@@gt-out hostname 0 $(printf 'h\xf4te-\xff' | b64)"
  echo "@@gt-end"
} >"$FAKE_SSH_DIR/$bad_host/stdout"
printf 'ssh: connect to host refused port 22: Connexion refus\xe9e\n' >"$FAKE_SSH_DIR/refused/fail"
printf '%s\nrefused\n' "$bad_host" >"$TMP/hosts-file"

fleet() {
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}
fleet --hosts-file "$TMP/hosts-file" --ssh-command "$FAKE_SSH" --host-timeout 10s --json
expect_rc 3  # the refused host is UNKNOWN
json_check 'len(d["hosts"]) == 2' "both hosts reported"
json_check '"\ufffd" in d["hosts"][0]["host"]' "the host name's invalid byte is U+FFFD"
json_check 'd["hosts"][1]["error"].endswith("Connexion refus\ufffde")' "ssh's error kept, replaced"

# Saved reports: one named in Latin-1, one holding a hostname that is not UTF-8.
mkdir -p "$TMP/reports"
"$WITH_MOCK" healthy-h100x8 "$TOOL" --json --no-state >"$TMP/one.json" || true
cp "$TMP/one.json" "$TMP/reports/"$'r\xe9seau'.json
"$PYTHON" - "$TMP/one.json" "$TMP/reports/two.json" <<'PY'
import sys
text = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(text.replace(b'"hostname": "', b'"hostname": "\xe9', 1))
PY
fleet --reports "$TMP/reports" --json
json_check 'len(d["hosts"]) == 2' "both saved reports read"
