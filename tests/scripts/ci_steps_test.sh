#!/usr/bin/env bash
# CI's steps (.ci/run) and what scripts/test.sh runs, with every step replaced by a stub that
# records its call: test.sh builds what the suite runs (triton_jit_suite, no benchmarks) and runs
# ctest only (the Triton version matrix, with its six virtualenvs, is not part of it), and .ci/run
# runs test.sh, then setup.sh (the benchmarks: the rest of `all`), then the version matrix (without
# the version test.sh has just tested: TRITON_JIT_VERSIONS_OTHERS=1), then the sanitizer and fuzzing
# steps (those two left out with CI_SANITIZE=0), each step even after a failed one.
#   ci_steps_test.sh WORK_DIR
set -euo pipefail
work=$1
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work/tree/.ci" "$work/tree/scripts" "$work/bin"
log="$work/calls.log"
cp "$repo/.ci/run" "$work/tree/.ci/run"
cp "$repo/scripts/test.sh" "$work/tree/scripts/test.sh"
# common.sh's steps as stubs: no set-up, no build.
cat >"$work/tree/scripts/common.sh" <<STUB
REPO_ROOT="$work/tree"; BUILD_DIR="$work/tree/build"; JOBS=2
tj_setup() { echo setup >>"$log"; }
tj_build() { echo "build\${*:+ \$*}" >>"$log"; }
tj_unlock() { :; }
tj_gpu_summary() { :; }
tj_log() { :; }
STUB
for step in setup.sh test-triton-versions.sh sanitize.sh fuzz.sh; do
  printf '#!/usr/bin/env bash\necho "%s $*${TRITON_JIT_VERSIONS_OTHERS:+ others=$TRITON_JIT_VERSIONS_OTHERS}" >>"%s"\nexit "${STUB_EXIT:-0}"\n' \
    "$step" "$log" >"$work/tree/scripts/$step"
  chmod +x "$work/tree/scripts/$step"
done
printf '#!/usr/bin/env bash\necho "ctest"  >>"%s"\n' "$log" >"$work/bin/ctest"
chmod +x "$work/bin/ctest"
export PATH="$work/bin:$PATH"

: >"$log"
bash "$work/tree/scripts/test.sh" >/dev/null || fail "scripts/test.sh failed with stubs"
[ "$(tr '\n' ' ' <"$log")" = "setup build triton_jit_suite ctest " ] ||
  fail "scripts/test.sh should set up, build and run ctest only; it ran: $(tr '\n' ' ' <"$log")"

: >"$log"
bash "$work/tree/.ci/run" >/dev/null 2>&1 || fail ".ci/run failed with stubs"
expected="setup build triton_jit_suite ctest setup.sh  test-triton-versions.sh build others=1 sanitize.sh asan fuzz.sh  "
[ "$(tr '\n' ' ' <"$log")" = "$expected" ] || fail ".ci/run ran: $(tr '\n' ' ' <"$log"); expected: $expected"

: >"$log"
CI_SANITIZE=0 bash "$work/tree/.ci/run" >/dev/null 2>&1 || fail ".ci/run with CI_SANITIZE=0 failed with stubs"
expected="setup build triton_jit_suite ctest setup.sh  test-triton-versions.sh build others=1 "
[ "$(tr '\n' ' ' <"$log")" = "$expected" ] || fail "CI_SANITIZE=0 .ci/run ran: $(tr '\n' ' ' <"$log")"

# A failed step does not stop the others; the exit status is the first failure's.
: >"$log"
rc=0
STUB_EXIT=3 bash "$work/tree/.ci/run" >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail ".ci/run exited with $rc after failed steps, expected 3"
grep -q '^fuzz.sh' "$log" || fail ".ci/run stopped after a failed step: $(tr '\n' ' ' <"$log")"
# The version matrix alone sets up and builds first (as test.sh does); given a folder, it does
# not; TRITON_JIT_VERSIONS=none does nothing. (The stubs build nothing, so it stops at the check
# that the folder is configured.)
cp "$repo/scripts/test-triton-versions.sh" "$work/tree/scripts/test-triton-versions.sh"
echo 'tj_die() { echo "die: $*" >>"'"$log"'"; exit 1; }' >>"$work/tree/scripts/common.sh"
: >"$log"
TRITON_JIT_VERSIONS=3.6.0 bash "$work/tree/scripts/test-triton-versions.sh" >/dev/null 2>&1 && fail "no build folder, yet it passed"
grep -q '^setup$' "$log" && grep -q '^build triton_jit_suite$' "$log" || fail "test-triton-versions.sh alone did not set up and build: $(tr '\n' ' ' <"$log")"
: >"$log"
TRITON_JIT_VERSIONS=3.6.0 bash "$work/tree/scripts/test-triton-versions.sh" "$work/tree/build" >/dev/null 2>&1 && fail "no build folder, yet it passed"
grep -q '^setup$' "$log" && fail "test-triton-versions.sh BUILD_DIR set up again: $(tr '\n' ' ' <"$log")"
grep -q 'not a configured build folder' "$log" || fail "test-triton-versions.sh BUILD_DIR: $(tr '\n' ' ' <"$log")"
: >"$log"
TRITON_JIT_VERSIONS=none bash "$work/tree/scripts/test-triton-versions.sh" >/dev/null 2>&1 || fail "TRITON_JIT_VERSIONS=none failed"
[ ! -s "$log" ] || fail "TRITON_JIT_VERSIONS=none did something: $(tr '\n' ' ' <"$log")"
# TRITON_JIT_VERSIONS_OTHERS=1 leaves out the build python's own Triton version: with only that
# one listed, nothing is left to test (no virtualenv is made). A stub python says 3.6.0.
mkdir -p "$work/tree/build"
printf '#!/usr/bin/env bash\ncase "$*" in *triton*) echo 3.6.0 ;; *) echo "3.11 /usr" ;; esac\n' >"$work/bin/stub-python"
chmod +x "$work/bin/stub-python"
printf 'Python3_EXECUTABLE:FILEPATH=%s\n' "$work/bin/stub-python" >"$work/tree/build/CMakeCache.txt"
: >"$work/tree/build/CTestTestfile.cmake"
: >"$log"
TRITON_JIT_VERSIONS=3.6.0 TRITON_JIT_VERSIONS_OTHERS=1 TRITON_JIT_VENVS="$work/venvs" \
  bash "$work/tree/scripts/test-triton-versions.sh" "$work/tree/build" >/dev/null 2>&1 ||
  fail "TRITON_JIT_VERSIONS_OTHERS=1 with only the build's version failed: $(tr '\n' ' ' <"$log")"
[ ! -e "$work/venvs" ] || fail "TRITON_JIT_VERSIONS_OTHERS=1 made a virtualenv for the build's own version"
echo "ok: test.sh builds triton_jit_suite and runs ctest only; .ci/run runs test.sh, setup.sh, the other Triton versions, sanitize.sh asan, fuzz.sh"
