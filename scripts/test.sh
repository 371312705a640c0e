#!/usr/bin/env bash
# Set-up, build and run every test against the pinned Triton (requirements.txt): the README's test
# command, and the first step CI runs (.ci/run).
#
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -R Signature
#
# Works from a fresh clone (see scripts/setup.sh for what it installs). Tests that need a GPU
# report as skipped on a machine without one. The other supported Triton releases are a step of
# their own (scripts/test-triton-versions.sh, after this one in .ci/run): this command makes no
# virtualenv but the one of scripts/setup.sh. It builds what the tests run (the target
# triton_jit_suite: everything but the benchmarks, which scripts/setup.sh or `cmake --build build`
# builds; .ci/run does so after this step). Exit status: ctest's.
# Knobs: those of scripts/setup.sh, plus CTEST_JOBS (default: nproc) and CTEST_TIMEOUT (seconds
# per test, default 1200).
# Time: the target is 10 minutes on a 2-core machine from a fresh clone, downloads excluded; 537 s
# measured with the compiler and kernel caches empty (2026-11-27: set-up 27 s, configure 24 s,
# build 210 s, ctest 276 s); that evening 612 s for the same tree and 610 s for a later one, on a
# slower machine (missed by 10 s). The `==>` lines give the seconds of each part;
# docs/guide/building.md ("Where the test time goes") sums ctest's per-test times by group.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

tj_setup
tj_build triton_jit_suite
tj_unlock

tj_gpu_summary
tj_log "ctest --test-dir $BUILD_DIR --output-on-failure${*:+ $*}"
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error \
  --parallel "${CTEST_JOBS:-$JOBS}" --timeout "${CTEST_TIMEOUT:-1200}" "$@" || status=$?
tj_log "finished with exit status $status"
exit "$status"
