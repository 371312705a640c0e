#!/usr/bin/env bash
# Set-up, build and run examples/vector_add.cpp: a Triton kernel called from C++.
#
#   scripts/run-example.sh
#
# Works from a fresh clone (see scripts/setup.sh for what it installs). With a GPU it launches the
# kernel and checks the result; without one it compiles for cuda:90 (or TRITON_JIT_TARGET) and
# prints what it would launch. TRITON_JIT_LOG=info (set here unless given) logs each compile.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

tj_setup
tj_build vector_add
tj_unlock

export TRITON_JIT_LOG="${TRITON_JIT_LOG:-info}"
tj_log "$BUILD_DIR/examples/vector_add"
exec "$BUILD_DIR/examples/vector_add" "$@"
