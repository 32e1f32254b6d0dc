# Helpers for the tests that use NVIDIA's own packages (sourced after
# tests/e2e/common.sh). The nvidia.fetch fixture has run scripts/fetch-nvidia
# into GT_NVIDIA_CACHE; when Debian's registry could not be reached it left
# the reason in UNAVAILABLE and these tests skip (exit 77) saying so. A cache
# that is simply missing is a failure: the fixture should have made it.
# shellcheck source=../e2e/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/common.sh"

NV="${GT_NVIDIA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-triage/nvidia}"
if [[ -f "$NV/UNAVAILABLE" ]]; then
  echo "SKIPPED: NVIDIA's packages could not be fetched: $(cat "$NV/UNAVAILABLE")"
  exit 77
fi
for r in r535 r550; do
  [[ -f "$NV/$r/STAMP" ]] || fail "$NV/$r is missing: run scripts/fetch-nvidia (the nvidia.fetch test does)"
done
# release -> the version NVIDIA's library reports and the header it ships with.
declare -A NV_VERSION=([r535]=535.261.03 [r550]=550.163.01)
declare -A NV_HEADER=([r535]=1108 [r550]=1204)
