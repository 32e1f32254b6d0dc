# Issue 36: the node before and after the crash, as two boots of the story.
# Boot 1 (story-before-crash): the TP=8 SGLang server in container OLD runs
# sglang 0.4.6, a real wheel installed by pip, with two of its files patched
# in place; /data is mounted from vdb1. Boot 2 (story-recreated): container
# NEW, the same wheel pristine, /data on nvme0n1p1, the board at 2a:00.0
# replaced (another serial and UUID). The triage of boot 2 says the
# container was recreated and the patch is gone, naming both files, with a
# step before the servers' and the job's; /data's device and the board once
# each. Then a RECORD without hashes and an unreadable file: said, no crash.
source "$(dirname "$0")/common.sh"
STATE="$TMP/state"
OLD=1111111111111111111111111111111111111111111111111111111111111111
NEW=2222222222222222222222222222222222222222222222222222222222222222
command -v "$PYTHON" >/dev/null && "$PYTHON" -m pip --version >/dev/null 2>&1 &&
  "$PYTHON" -c 'import setuptools, wheel' 2>/dev/null ||
  fail "no pip with setuptools and wheel for $PYTHON: scripts/install-deps installs python3-pip, python3-wheel"

# sglang 0.4.6 with the two files the operator patched, built offline.
mkdir -p "$TMP/wheel/src/sglang/srt/model_executor" "$TMP/wheel/src/sglang/srt/layers"
printf 'def run():\n    return 0\n' >"$TMP/wheel/src/sglang/srt/model_executor/model_runner.py"
printf 'def logits(x):\n    return x\n' >"$TMP/wheel/src/sglang/srt/layers/logits_processor.py"
printf '' >"$TMP/wheel/src/sglang/__init__.py"
printf '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "sglang"\nversion = "0.4.6"\n[tool.setuptools.packages.find]\nwhere = ["src"]\n' >"$TMP/wheel/pyproject.toml"
(cd "$TMP/wheel" && "$PYTHON" -m pip wheel -q --no-deps --no-build-isolation --no-index -w dist . >/dev/null 2>&1) ||
  fail "building the wheel failed"

# boot N CONTAINER DEVICE [patched] [replaced]: the story as boot N saw it.
boot() {
  local n="$1" container="$2" device="$3" patched="${4:-}" replaced="${5:-}"
  DIR="$TMP/boot$n"
  rm -rf "$DIR"
  cp -r "$GT_SOURCE_DIR/tests/scenarios/story" "$DIR"
  local root="$DIR/root"
  mkdir -p "$root/proc/sys/kernel/random"
  echo "5e1f0c2$n-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$root/proc/sys/kernel/random/boot_id"
  echo "0::/system.slice/docker-$container.scope" >"$root/proc/self/cgroup"
  # With IMAGE: a podman container, which names its image inside.
  if [[ -n "${IMAGE:-}" ]]; then
    echo "0::/machine.slice/libpod-$container.scope" >"$root/proc/self/cgroup"
    mkdir -p "$root/run"
    printf 'engine="podman-4.3.1"\nname="sglang"\nid="%s"\nimage="docker.io/lmsysorg/sglang:latest"\nimageid="%s"\nrootless=0\n' \
      "$container" "$IMAGE" >"$root/run/.containerenv"
  fi
  # /data as this boot had it: the story's own mount (the new NVMe) replaced,
  # and before the crash fstab named the old disk (vdb1) by its UUID.
  sed -i '\# /data #d' "$root/proc/self/mountinfo"
  echo "40 22 259:1 / /data rw,relatime shared:30 - ext4 /dev/$device rw" >>"$root/proc/self/mountinfo"
  [[ "$device" != vdb1 ]] ||
    sed -i 's#^UUID=[-0-9a-f]* /data #UUID=9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40 /data #' "$root/etc/fstab"
  "$PYTHON" -m pip install -q --no-index --no-deps --prefix "$root/opt/venv" "$TMP"/wheel/dist/*.whl \
    >/dev/null 2>&1 || fail "pip install into the fixture failed"
  SITE=$(cd "$root" && dirname "$(find opt -name 'sglang-0.4.6.dist-info' -type d)")
  [[ -n "$SITE" && "$SITE" != . ]] || fail "no dist-info installed"
  # Each process maps the wheel's file; its files are read in its own root
  # (/proc/PID/root, which every live process has), the container's.
  for p in "$root"/proc/[0-9]*; do
    echo "7f0000000000-7f0000001000 r--p 00000000 08:01 4242 /$SITE/sglang/srt/layers/logits_processor.py" >"$p/maps"
    [[ -e "$p/root" || -L "$p/root" ]] || ln -s / "$p/root"
  done
  if [[ -n "$patched" ]]; then
    echo "    # hidden state dump" >>"$root/$SITE/sglang/srt/model_executor/model_runner.py"
    sed -i 's/return x/return x  # dump/' "$root/$SITE/sglang/srt/layers/logits_processor.py"
  fi
  "$PYTHON" - "$DIR/scenario.json" "$replaced" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["devices"][1]["board_part_number"] = "900-2G153-0000-000"
if sys.argv[2]:
    d["devices"][1]["serial"] = "1794125999999"
    d["devices"][1]["uuid"] = "GPU-00000000-1111-2222-3333-444444444444"
    d["devices"][1]["board_part_number"] = "900-2G153-0001-000"
json.dump(d, open(sys.argv[1], "w"))
PY
  run "$DIR" --sample "${SAMPLE:-0}" --json --state-dir "$STATE"
}

boot 1 "$OLD" vdb1 patched
json_check '[f["id"] for f in d["findings"] if f["id"].startswith("change.")] == ["change.local_patch"]' "boot 1: only the local patch, said"
json_check 'any(p["name"] == "sglang" and sorted(m["path"] for m in p["modified"]) == ["sglang/srt/layers/logits_processor.py", "sglang/srt/model_executor/model_runner.py"] for e in d["history"]["fingerprint"]["python"] for p in e["packages"])' "the two edited files found by hash and size"
json_check 'd["history"]["fingerprint"]["container"]["id"] == "'$OLD'"' "the old container's id"
boot 1 "$OLD" vdb1 patched  # the same boot again: nothing changed
json_check '[f["id"] for f in d["findings"] if f["id"].startswith("change.") and f["id"] != "change.local_patch"] == []' "a rerun in the same boot changes nothing"

# A sample window: the idle server's step (memory.held_idle) is planned.
SAMPLE=0.3s boot 2 "$NEW" nvme0n1p1 "" replaced
ids() { "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted(f["id"] for f in d["findings"] if f["id"].startswith("change."))))' "$TMP/out"; }
[[ "$(ids)" == "change.container_recreated change.data_device change.gpu_replaced" ]] || fail "boot 2's changes: $(ids)"
json_check 'any(f["id"] == "change.container_recreated" and f["severity"] == "warning" and "sglang 0.4.6 had 2 locally modified files before (sglang/srt/layers/logits_processor.py, sglang/srt/model_executor/model_runner.py) and now matches its wheel" in f["title"] and "re-apply the patch before resuming" in f["title"] for f in d["findings"])' "the re-apply finding names the files"
json_check 'any(f["id"] == "change.data_device" and "/data was /dev/vdb1 and is now /dev/nvme0n1p1" in f["title"] and "UUID=9f1c2d7a" in f["evidence"] for f in d["findings"])' "the data path's device, with the fstab line"
json_check 'any(f["id"] == "change.gpu_replaced" and "0000:2a:00.0" in f["title"] and "1794125999999" in f["title"] for f in d["findings"])' "the replaced board"
json_check 'any(f["id"] == "change.gpu_replaced" and "part number 900-2G153-0000-000; now" in f["evidence"] and f["evidence"].endswith("part number 900-2G153-0001-000") for f in d["findings"])' "both boards' part numbers"
json_check 'd["history"]["fingerprint"]["gpus"][1]["board_part_number"] == "900-2G153-0001-000" and d["history"]["fingerprint"]["gpus"][0]["board_part_number"] is None' "the part number in the fingerprint, null where the board does not say"
json_check 'd["gpus"][1]["board_part_number"] == "900-2G153-0001-000"' "and in the GPU's report"
json_check 'd["history"]["fingerprint"]["container"]["image_id"] is None' "a docker container: no image id"
# The plan: re-apply the patch before any server or job step.
json_check '[i for i, s in enumerate(d["plan"]) if "change.container_recreated" in s["finding_ids"]] != []' "a plan step re-applies the patch"
json_check 'any("memory.held_idle" in s["finding_ids"] for s in d["plan"])' "the idle server has its step"
# The timeline: the run compared with, then each change.
json_check 'any(l["what"].startswith("gpu-triage'"'"'s run compared with (the last run of boot 5e1f0c21") and "/data on /dev/vdb1" in l["what"] for l in d["incident"]["timeline"])' "the timeline names the run compared with"
json_check 'sum(l["what"].startswith("changed since then: ") for l in d["incident"]["timeline"]) >= 3 and any("data device /data" in l["what"] for l in d["incident"]["timeline"])' "the timeline carries each change"
json_check 'all(i > [j for j, t in enumerate(d["plan"]) if "change.container_recreated" in t["finding_ids"]][0] for i, s in enumerate(d["plan"]) if any(x.startswith(("memory.held", "data.")) for x in s["finding_ids"]))' "the patch step comes before the servers and the job"

# Boot 2 bundled, then replayed: the record across boots and the fingerprint
# travel in its report, so the replay says the same changes; the replay
# never writes the record it names (or this machine's).
changes=$(ids)
sum=$(sha256sum "$STATE/history.json")
run "$DIR" bundle -o "$TMP/boot2.tar.zst" --sample 0 --state-dir "$STATE"
expect_rc 0
[[ "$(sha256sum "$STATE/history.json")" == "$sum" ]] || fail "bundle wrote the record"
set +e
"$TOOL" --bundle "$TMP/boot2.tar.zst" --json >"$TMP/out" 2>"$TMP/err"
set -e
[[ "$(ids)" == "$changes" ]] || fail "the replay's changes: $(ids), recorded: $changes"
[[ "$(sha256sum "$STATE/history.json")" == "$sum" ]] || fail "the replay wrote the record"

# An unreadable file (a FIFO, never waited for), then a RECORD without
# hashes: each said, the package never called pristine.
boot 3 "$NEW" nvme0n1p1
py="$DIR/root/$SITE/sglang/srt/layers/logits_processor.py"
rm "$py" && mkfifo "$py"
run "$DIR" --sample 0 --json --state-dir "$STATE"
json_check 'any(p["name"] == "sglang" and not p["fully_checked"] and any("1 .py file(s) missing or unreadable" in n for n in p["notes"]) for e in d["history"]["fingerprint"]["python"] for p in e["packages"])' "an unreadable file is said"
sed -i 's/,sha256=[^,]*,/,,/' "$DIR/root/$SITE/sglang-0.4.6.dist-info/RECORD"
run "$DIR" --sample 0 --json --state-dir "$STATE"
json_check 'any(p["name"] == "sglang" and not p["fully_checked"] and any("without a sha256" in n for n in p["notes"]) for e in d["history"]["fingerprint"]["python"] for p in e["packages"])' "a RECORD without hashes is said"

# Podman names the image inside (/run/.containerenv): a container recreated
# from the same image says so, one from another image says both.
IMG_A=3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a
IMG_B=4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b
IMAGE=$IMG_A boot 4 4444444444444444444444444444444444444444444444444444444444444444 nvme0n1p1
json_check 'd["history"]["fingerprint"]["container"]["image_id"] == "'$IMG_A'" and d["history"]["fingerprint"]["container"]["image"] == "docker.io/lmsysorg/sglang:latest"' "podman's image and its id"
json_check 'any(f["id"] == "change.container_recreated" and "image" not in f["evidence"] for f in d["findings"])' "the docker container before: its image unknown, none said"
IMAGE=$IMG_A boot 5 5555555555555555555555555555555555555555555555555555555555555555 nvme0n1p1
json_check 'any(f["id"] == "change.container_recreated" and "from the same image docker.io/lmsysorg/sglang:latest (id 3a3a3a3a3a3a)" in f["evidence"] and "another image" not in f["title"] for f in d["findings"])' "recreated from the same image"
IMAGE=$IMG_B boot 6 6666666666666666666666666666666666666666666666666666666666666666 nvme0n1p1
json_check 'any(f["id"] == "change.container_recreated" and "image docker.io/lmsysorg/sglang:latest (id 3a3a3a3a3a3a) -> docker.io/lmsysorg/sglang:latest (id 4b4b4b4b4b4b)" in f["evidence"] and "recreated from another image" in f["title"] for f in d["findings"])' "recreated from another image"
"$TOOL" history --state-dir "$STATE" >"$TMP/hist" 2>&1 || fail "history failed: $(cat "$TMP/hist")"
grep -q "container 666666666666 (image 4b4b4b4b4b4b)" "$TMP/hist" || fail "history shows the image: $(cat "$TMP/hist")"

# A driver upgraded on purpose is a note said once: the first table report
# of the boot after it says it (a person read it), later runs of that boot
# do not; JSON and --oneline (a program's) leave it unsaid; the next boot
# says nothing.
boot 7 "$NEW" nvme0n1p1
echo 595.10.01 >"$DIR/root/sys/module/nvidia/version"
run "$DIR" --sample 0 --json --state-dir "$STATE"
json_check 'any(f["id"] == "change.driver" and f["severity"] == "info" and "kernel module 590.48.01 -> 595.10.01" in f["title"] for f in d["findings"])' "the driver change, said"
run "$DIR" --sample 0 --oneline --state-dir "$STATE"
run "$DIR" --sample 0 --json --state-dir "$STATE"
json_check 'any(f["id"] == "change.driver" for f in d["findings"])' "JSON and a line are not a person's: still to be said"
run "$DIR" --sample 0 --state-dir "$STATE"
grep -q "change.driver" "$TMP/out" || fail "the table report says the driver change: $(cat "$TMP/out")"
run "$DIR" --sample 0 --json --state-dir "$STATE"
json_check 'not any(f["id"] == "change.driver" for f in d["findings"])' "said once: not again in the same boot"
json_check 'any(any(k.startswith("change.driver") for k in b["said_changes"]) for b in d["history"]["boots"])' "the record keeps it as said"
echo "5e1f0c28-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$DIR/root/proc/sys/kernel/random/boot_id"
run "$DIR" --sample 0 --json --state-dir "$STATE"
json_check 'not any(f["id"] == "change.driver" for f in d["findings"])' "the next boot: nothing changed since boot 7"
