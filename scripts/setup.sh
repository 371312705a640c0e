#!/usr/bin/env bash
# Set-up from a fresh clone: picks the python whose triton the embedded interpreter uses (an
# existing one as is, else a .venv filled from requirements.txt), installs missing Debian
# packages, configures with CMake and builds everything. Idempotent; re-running is fast.
#
#   scripts/setup.sh              set up, configure and build all targets
#   scripts/setup.sh --no-build   set up and configure only
#
# Knobs: TRITON_JIT_PYTHON, BUILD_DIR, BUILD_TYPE, CMAKE_ARGS, JOBS, TRITON_JIT_SKIP_APT
# (see scripts/common.sh).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

build=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    -h | --help)
      sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *) tj_die "unknown argument: $arg (try --help)" ;;
  esac
done

tj_setup
if [ "$build" = 1 ]; then tj_build; fi
tj_log "done: python $TJ_PYTHON, build folder $BUILD_DIR"
