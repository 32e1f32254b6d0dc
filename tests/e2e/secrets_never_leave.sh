# Secrets stay on the node (issue 47): a corpus of secrets in every form a
# GPU server carries, planted in a real process's argv and environment, a
# vLLM --config file, a unit file, a drop-in and a stand-in
# nvidia-bug-report.sh that writes its .gz as the real one does, run
# through every output: the triage's text and JSON, --textfile, the record
# across boots (the state dir), `history --json`, every member of a bundle
# (decompressed, the bug report too) and serve's /healthz and /metrics.
# No planted value may appear anywhere, and a harmless value planted beside
# each (a model path, a port, a dtype) must survive: the rule cannot pass
# by redacting everything. Every failure is listed, not only the first.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"
FIX="$GT_SOURCE_DIR/tests/fixtures/secrets"

# The corpus: each secret is "PLANTED" plus a number, in a real shape.
pem=$'-----BEGIN RSA PRIVATE KEY-----\nMIIEPLANTED03pem\nPLANTED03body\n-----END RSA PRIVATE KEY-----'
argv=(
  serve "s3://AKIAPLANTED05EXAMP:PLANTED06s3pw@bucket-safe2/llama"    # URL user:password (AKIA shape)
  --api-key -xPLANTED01dash                                           # a value starting with '-'
  --password -xPLANTED02dash
  --private-key "$pem"                                                # a PEM block
  --pass PLANTED04pass
  --hf-token=hf_PLANTED07abcdefghijklmnopqrstuv                       # name and shape
  --revision-url https://ghp_PLANTED08abcdefghijklmnopqrstuvwxyz@github.com/o/r  # token-only userinfo
  --weights "https://b.s3.amazonaws.com/m?X-Amz-Credential=AKIAcredPLANTED09&X-Amz-Signature=PLANTED10sig&X-Amz-Expires=60"
  --blob "https://a.blob.core.windows.net/c/m?sv=2024&sig=PLANTED11sig&se=1"
  --hook "https://x.example/h?token=PLANTED12tok&access_token=PLANTED13tok&key=PLANTED14key"
  -H "Cookie: session=PLANTED15cookie" -H "x-api-key: PLANTED16xapi" -H "Authorization: Bearer PLANTED17bearer"
  -u admin:PLANTED18curl --user bob:PLANTED19curl
  --note sk-proj-PLANTED20abcdefghijklmnop xoxb-123-PLANTED21slack AIzaPLANTED22abcdefghijklmnopqrstuvwxyz1
  --config "$TMP/serve.yaml"
  # Harmless values beside them: each must survive.
  --tokenizer /models/tok-safe1 --kv-cache-dtype fp8 --key-cache-dtype fp8
  --max-num-batched-tokens 8192 --tp 1 --api-key-file /run/keys/safe3
)
env_plant=(
  SENTRY_DSN=https://PLANTED23dsn@o1.ingest.sentry.io/42
  SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0/B0/PLANTED24hook
  HF_TOKEN=hf_PLANTED25abcdefghijklmnopqrstuv
  DB_PASS=-PLANTED26dbpass
  MODEL_DIR=/models/safe4-env
)
secrets=(PLANTED01dash PLANTED02dash PLANTED03pem PLANTED03body PLANTED04pass AKIAPLANTED05EXAMP
  PLANTED06s3pw PLANTED07abcdef PLANTED08abcdef AKIAcredPLANTED09 PLANTED10sig PLANTED11sig
  PLANTED12tok PLANTED13tok PLANTED14key PLANTED15cookie PLANTED16xapi PLANTED17bearer
  PLANTED18curl PLANTED19curl PLANTED20abcdef PLANTED21slack PLANTED22abcdef PLANTED22cfg
  PLANTED23dsn PLANTED24hook PLANTED25abcdef PLANTED26dbpass PLANTED27unit PLANTED28drop
  PLANTED29drop PLANTED30dock PLANTED31dock PLANTED32dock PLANTED33dock)
# Harmless values, and the outputs that must still show each.
harmless=(/models/tok-safe1 "--kv-cache-dtype fp8" "--key-cache-dtype fp8" "--max-num-batched-tokens 8192"
  bucket-safe2/llama /run/keys/safe3)

sed "s/PLANTEDcfg22/PLANTED22cfg/" "$FIX/serve.yaml" >"$TMP/serve.yaml"
mkdir -p "$TMP/bin"
cp "$FIX/vllm" "$FIX/nvidia-bug-report.sh" "$TMP/bin/"
env "${env_plant[@]}" "$TMP/bin/vllm" "${argv[@]}" &
holder=$!
EXTRA_PGIDS=()
trap 'kill -9 $holder 2>/dev/null || true; serve_cleanup' EXIT
for _ in $(seq 50); do grep -q PLANTED01 /proc/$holder/cmdline 2>/dev/null && break; sleep 0.1; done
export HOLDER=$holder PATH="$TMP/bin:$PATH"
# One GPU held by the process (pid from $HOLDER).
cp "$GT_SOURCE_DIR/tests/fixtures/secrets/one_holder.json" "$TMP/scenario.json"

failures=()
# leaks WHAT PATH...: every planted secret absent from the files (gzip
# members decompressed), each leak listed.
leaks() {
  local what="$1" s f
  shift
  for f in $(find "$@" -type f); do
    if [[ "$(head -c2 "$f" | od -An -tx1 | tr -d ' ')" == 1f8b ]]; then
      gzip -dc "$f" >"$f.txt" 2>/dev/null || true
    fi
  done
  for s in "${secrets[@]}"; do
    f=$(grep -rla -- "$s" "$@" 2>/dev/null | head -3 | tr '\n' ' ' || true)
    [[ -z "$f" ]] || failures+=("$what: $s in ${f//$TMP\//}")
  done
}
# survives WHAT FILE VALUE...: each harmless value still in FILE.
survives() {
  local what="$1" file="$2" v
  shift 2
  for v in "$@"; do grep -qaF -- "$v" "$file" || failures+=("$what: the harmless '$v' is gone"); done
}

# 1. The triage: text, JSON, --textfile, the record across boots.
mkdir -p "$TMP/textfile"
run "$TMP/scenario.json" --root / --no-kernel-log --sample 0 --wide --textfile "$TMP/textfile"
cp "$TMP/out" "$TMP/report.txt"
run "$TMP/scenario.json" --root / --no-kernel-log --sample 0 --json
cp "$TMP/out" "$TMP/report.json"
leaks "triage text" "$TMP/report.txt"
leaks "triage JSON" "$TMP/report.json"
leaks "--textfile" "$TMP/textfile"
survives "triage JSON" "$TMP/report.json" "${harmless[@]}"
run "$TMP/scenario.json" --root / history --json
cp "$TMP/out" "$TMP/history.json"
leaks "history --json" "$TMP/history.json"
leaks "the record across boots" "$GPU_TRIAGE_STATE_DIR"
grep -q 'bucket-safe2/llama' "$TMP/textfile/gpu-triage.prom" ||
  failures+=("--textfile: no model label without its credentials: $(grep -o 'model="[^"]*"' "$TMP/textfile/gpu-triage.prom" | head -1)")

# 2. A bundle with the bug report: every member, decompressed.
run "$TMP/scenario.json" bundle -o "$TMP/live.tar.zst" --root / --no-state --no-kernel-log --with-bug-report
expect_rc 0
mkdir "$TMP/live" && tar -xf "$TMP/live.tar.zst" -C "$TMP/live"
zstd -dc "$TMP/live.tar.zst" >"$TMP/live.tar"
leaks "bundle" "$TMP/live" "$TMP/live.tar"
tar -tf "$TMP/live.tar.zst" >"$TMP/live.list"
grep -qx 'bug-report/nvidia-bug-report.log.gz' "$TMP/live.list" ||
  grep -q 'nvidia-bug-report.log.gz left out' "$TMP/live/manifest.json" ||
  failures+=("bundle: the bug report neither kept nor said left out")
# Redacted inside and compressed again, its harmless lines kept.
[[ -f "$TMP/live/bug-report/nvidia-bug-report.log.gz.txt" ]] && survives "bug report" \
  "$TMP/live/bug-report/nvidia-bug-report.log.gz.txt" /models/llama-SAFEbug "port 8123" "--api-key <redacted>" ||
  failures+=("bundle: the bug report is not a redacted gzip member")
# The --config file the triage read is copied, its URL without userinfo.
grep -rqxF 'weights-url: https://<redacted>@github.com/org/weights' "$TMP/live/root" ||
  failures+=("bundle: the --config file is not copied redacted")
survives "bundle's cmdline" "$TMP/live/root/proc/$holder/cmdline" /models/tok-safe1 fp8 8192 bucket-safe2/llama
[[ ! -f "$TMP/live/root/proc/$holder/environ" ]] ||
  survives "bundle's environ" "$TMP/live/root/proc/$holder/environ" MODEL_DIR=/models/safe4-env
"$PYTHON" - "$TMP/live/manifest.json" <<'PY' || failures+=("manifest: a redaction without its member and rule")
import json, sys
m = json.load(open(sys.argv[1]))
assert all(r["member"] and r["what"] for r in m["redactions"]), m["redactions"]
assert any(r["member"] == "bug-report/nvidia-bug-report.log.gz" for r in m["redactions"]) or \
    any("nvidia-bug-report.log.gz left out" in n for n in m["notes"]), m["notes"]
PY

# 3. A unit file and its drop-in (incident-story's tree: sglang.service),
#    a worker's environ.
cp -a "$GT_SOURCE_DIR/tests/scenarios/incident-story/root" "$TMP/root"
unit="$TMP/root/etc/systemd/system/sglang.service"
sed -i 's|^Environment=CUDA_DEVICE_ORDER=PCI_BUS_ID|&\nExecStartPost=/usr/bin/curl -u admin:PLANTED27unit http://127.0.0.1:30000/health|' "$unit"
mkdir -p "$unit.d"
printf '[Service]\nEnvironment=SENTRY_DSN=https://PLANTED28drop@o1.ingest.sentry.io/7\nEnvironment="API_PASSWORD=-PLANTED29drop"\n' >"$unit.d/override.conf"
printf 'SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T/B/PLANTED24hook\0' >>"$TMP/root/proc/3187/environ"
run story bundle -o "$TMP/story.tar.zst" --root "$TMP/root" --no-state
expect_rc 0
mkdir "$TMP/story" && tar -xf "$TMP/story.tar.zst" -C "$TMP/story"
leaks "bundle of a unit" "$TMP/story"
grep -q 'curl -u <redacted> http://127.0.0.1:30000/health' "$TMP/story/root/etc/systemd/system/sglang.service" ||
  failures+=("unit: the harmless URL beside the password is gone")
run story --root "$TMP/root" --no-state --json
cp "$TMP/out" "$TMP/story.json"
leaks "triage JSON of a unit" "$TMP/story.json"

# 3b. A Docker container's record (the story's tree: config.v2.json keeps
#     the container's environment, `docker run --env`), read for the
#     server's container and so copied into the bundle.
cp -a "$GT_SOURCE_DIR/tests/scenarios/story/root" "$TMP/droot"
cfg=$(ls "$TMP"/droot/var/lib/docker/containers/*/config.v2.json)
"$PYTHON" - "$cfg" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["Config"]["Env"] += ["AWS_SECRET_ACCESS_KEY=PLANTED30dock", "HF_TOKEN=hf_PLANTED31dockabcdefghijklmnop",
                       "OPENAI_API_KEY=sk-proj-PLANTED32dockabcdefghijklmnop", "DEPLOY_CRED=PLANTED33dock"]
json.dump(c, open(sys.argv[1], "w"))
PY
run story bundle -o "$TMP/docker.tar.zst" --root "$TMP/droot" --no-state
expect_rc 0
mkdir "$TMP/docker" && tar -xf "$TMP/docker.tar.zst" -C "$TMP/docker"
leaks "bundle of a container's record" "$TMP/docker"
dcfg=$(ls "$TMP"/docker/root/var/lib/docker/containers/*/config.v2.json 2>/dev/null || true)
if [[ -z "$dcfg" ]]; then
  failures+=("bundle: the container's record is not in it")
else
  survives "bundle of a container's record" "$dcfg" "specforge:kimi-k2.5" "/workspace/start.sh"
fi
run story --root "$TMP/droot" --no-state --json
cp "$TMP/out" "$TMP/docker.json"
leaks "triage JSON of a container" "$TMP/docker.json"

# 4. serve: /healthz and /metrics.
start_serve "$TMP/scenario.json" --root / --no-kernel-log --sample 0 --no-state
for _ in $(seq 100); do
  fetch /healthz
  [[ "$HTTP_STATUS" != 503 ]] && break
  sleep 0.1
done
cp "$TMP/body" "$TMP/healthz.json"
fetch /metrics
cp "$TMP/body" "$TMP/metrics.txt"
leaks "serve /healthz" "$TMP/healthz.json"
leaks "serve /metrics" "$TMP/metrics.txt"
survives "serve /healthz" "$TMP/healthz.json" /models/tok-safe1 "--max-num-batched-tokens 8192"

if [[ ${#failures[@]} -gt 0 ]]; then
  printf '%s\n' "${failures[@]}" >&2
  fail "${#failures[@]} leak(s) or lost harmless value(s)"
fi
exit 0
