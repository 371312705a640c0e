#!/usr/bin/env bash
# Set-up, build and run every test: the one command CI runs (.ci/run).
#
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -R Signature
#
# Works from a fresh clone (see scripts/setup.sh for what it installs). Tests that need a GPU
# report as skipped on a machine without one. After ctest, scripts/test-triton-versions.sh runs
# the CPU tests again against every supported Triton release (a small virtualenv each, made on
# first use and kept in ~/.cache/triton_jit/venvs). Exit status: 0 when both passed.
# Knobs: those of scripts/setup.sh, plus CTEST_JOBS (default: nproc), CTEST_TIMEOUT (seconds
# per test, default 1200) and TRITON_JIT_VERSIONS (space-separated versions; "none" skips them;
# default: all supported, or none when ctest arguments select tests) and TRITON_JIT_VENVS.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

tj_setup
tj_build
tj_unlock

tj_gpu_summary
tj_log "ctest --test-dir $BUILD_DIR --output-on-failure${*:+ $*}"
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error \
  --parallel "${CTEST_JOBS:-$JOBS}" --timeout "${CTEST_TIMEOUT:-1200}" "$@" || status=$?
tj_log "tests finished with exit status $status"

# A selection of tests (ctest arguments) skips the other Triton versions unless they are asked for.
if [ $# -gt 0 ] && [ -z "${TRITON_JIT_VERSIONS:-}" ]; then export TRITON_JIT_VERSIONS=none; fi
versions_status=0
"$REPO_ROOT/scripts/test-triton-versions.sh" "$BUILD_DIR" || versions_status=$?
if [ "$status" = 0 ] && [ "$versions_status" != 0 ]; then status=$versions_status; fi
tj_log "finished with exit status $status (ctest, then the Triton versions)"
exit "$status"
