# A server whose program has no known name (issue 49 item 5): nccl-shm-64m's
# tree rewritten as a script of one's own over SGLang's ServerArgs, started
# by a leader shell script ("/bin/bash /opt/start.sh" runs "python3
# /opt/app/serve.py ...", whose eight rank processes hold the GPUs under
# their parent's command line). --mem-fraction-static is SGLang's parser's
# alone: the kind is SGLang, said to be by its flags, and its layout read as
# SGLang's parser reads it (--tp 8). With only flags several servers define
# (--tensor-parallel-size: vLLM's, SGLang's, Aphrodite's) the kind is
# "unknown (serve.py)": its program, never "python3" or "bash".
source "$(dirname "$0")/common.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/nccl-shm-64m" "$TMP/sc"
p="$TMP/sc/root/proc"
# The leader script, parent of the server (6100 reparented under it).
proc_copy "$p" 6100 6090
proc_reparent "$p" 6100 6090
proc_as "$p" 6090 bash /bin/bash /opt/start.sh
serve() {
  for pid in 6100 6101 6102 6103 6104 6105 6106 6107 6108; do
    proc_as "$p" $pid python3 python3 /opt/app/serve.py "$@"
  done
}
serve --model-path /models/Qwen3-32B --tp 8 --mem-fraction-static 0.85 --port 30000

run "$TMP/sc" --json --sample 0 --no-state
json_check "[(s['kind'], s['recognised'], s['root_pid'], s['tensor_parallel'], s['port'], s['model']) for s in d['servers']] == [('SGLang', True, 6100, 8, 30000, '/models/Qwen3-32B')]" \
  "SGLang by its flags, read as SGLang's parser reads them"
json_check "any('kind SGLang by its flags (--mem-fraction-static' in n for n in d['servers'][0]['identity_notes'])" \
  "the identity says it was decided by flags"

serve --model /models/Qwen3-32B --tensor-parallel-size 8 --gpu-memory-utilization 0.9 --port 8000
run "$TMP/sc" --json --sample 0 --no-state
json_check "[(s['kind'], s['recognised'], s['tensor_parallel']) for s in d['servers']] == [('unknown (serve.py)', False, 8)]" \
  "shared flags decide nothing: its program names it"
echo "PASS: a generic program is a server's by its flags, else named by its program"
