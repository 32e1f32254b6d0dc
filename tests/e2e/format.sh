# clang-format enforces layout (.clang-format at the repo root), not reviewers.
source "$(dirname "$0")/common.sh"
command -v clang-format >/dev/null || { echo "SKIP: clang-format not installed"; exit 0; }
cd "$GT_SOURCE_DIR"
out=$(git ls-files '*.cc' '*.h' 2>/dev/null | xargs clang-format --dry-run 2>&1 | grep warning || true)
[[ -z "$out" ]] || fail "not clang-formatted (run make format):
$(echo "$out" | cut -d: -f1 | sort -u)"
