#!/usr/bin/env bash
# TRITON_JIT_CORE_ONLY=1: the documented run without torch.
#   core_only_test.sh PYTHON WORK_DIR
# PYTHON imports triton (the build's); WORK_DIR is emptied and used for a build folder.
set -euo pipefail
python=$1
work=$2
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work"

# requirements-core.txt is requirements.txt without torch, with the same pins.
pins() { grep -v '^[[:space:]]*\(#\|$\)' "$1" | sed 's/[[:space:]]*#.*//' | sort; }
expected="$(pins "$repo/requirements.txt" | grep -v '^torch\b')"
[ "$(pins "$repo/requirements-core.txt")" = "$expected" ] ||
  fail "requirements-core.txt differs from requirements.txt without torch:
$(diff <(pins "$repo/requirements-core.txt") <(echo "$expected") || true)"
pins "$repo/requirements.txt" | grep -q '^torch==' || fail "requirements.txt no longer pins torch: update this test"

# What the scripts choose, read from common.sh itself.
choice() {
  env "$@" bash -c 'source "$1/scripts/common.sh"; TJ_PYTHON="$2"; tj_configure_args "$3" >/dev/null
                    echo "$VENV_DIR $REQUIREMENTS ${TJ_CMAKE_ARGS[*]}"' _ "$repo" "$python" "$work/probe"
}
core="$(choice TRITON_JIT_CORE_ONLY=1)"
full="$(choice TRITON_JIT_CORE_ONLY=0)"
case "$core" in "$repo/.venv-core $repo/requirements-core.txt "*"-DTRITON_JIT_BUILD_TORCH=OFF"*) ;;
  *) fail "core only chose: $core" ;; esac
case "$full" in "$repo/.venv $repo/requirements.txt "*"-DTRITON_JIT_BUILD_TORCH=ON"*) ;;
  *) fail "the default chose: $full" ;; esac
if out="$(choice TRITON_JIT_CORE_ONLY=perhaps 2>&1)"; then fail "TRITON_JIT_CORE_ONLY=perhaps accepted"; fi
case "$out" in *"TRITON_JIT_CORE_ONLY must be 1 or 0, not perhaps"*) ;; *) fail "no clear error: $out" ;; esac

# A real configure, core only, with a python that has torch: the torch layer stays out.
log="$work/setup.log"
if ! TRITON_JIT_CORE_ONLY=1 TRITON_JIT_PYTHON="$python" TRITON_JIT_SKIP_APT=1 BUILD_DIR="$work/build" \
  CMAKE_ARGS="-DTRITON_JIT_BUILD_BENCHMARKS=OFF" "$repo/scripts/setup.sh" --no-build >"$log" 2>&1; then
  cat "$log"
  fail "scripts/setup.sh --no-build failed core only"
fi
grep -q 'core only (TRITON_JIT_CORE_ONLY=1)' "$log" || fail "setup did not say it runs core only"
grep -q '^TRITON_JIT_BUILD_TORCH:BOOL=OFF$' "$work/build/CMakeCache.txt" || fail "TRITON_JIT_BUILD_TORCH is not OFF"
if grep -q 'libtorch .*: building TritonJit::torch' "$log"; then fail "the torch layer was configured"; fi
[ ! -e "$work/build/torch/ops" ] || fail "the build folder has the operator library's folder"
echo "ok: core only uses requirements-core.txt in .venv-core and configures without the torch layer"
