#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (build-fuzz/) and runs each for a bounded
# time, starting from its seed corpus in tests/fuzz/corpus/NAME.
#
#   scripts/fuzz.sh [NAME...]        e.g. scripts/fuzz.sh pack_fuzzer     (default: every fuzzer)
#
# Each run: -max_total_time=FUZZ_SECONDS, -rss_limit_mb=2048, -malloc_limit_mb=512 (one
# allocation above that is a finding: a reader sized something from a damaged count),
# -timeout=5 (an input that takes longer is a hang). What a run finds new goes to
# build-fuzz/corpus/NAME (the committed seeds stay as they are); a crash, leak, hang or
# oversized allocation is written to build-fuzz/artifacts/NAME/ and fails the script. To replay
# one: build-fuzz/tests/fuzz/NAME FILE. A fixed crash's input belongs in tests/fuzz/corpus/NAME,
# where `ctest -L fuzz` in build-fuzz replays every seed.
#
# Knobs: FUZZ_SECONDS (per fuzzer, default 30), FUZZ_BUILD_DIR (default build-fuzz), CLANGXX
# (default clang++), JOBS (build jobs, and fuzzers run at a time: default nproc),
# TRITON_JIT_PYTHON (configure needs a python, the fuzzers do not).
# Exit status: 0 when every fuzzer ran its time without a finding.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SECONDS_EACH="${FUZZ_SECONDS:-30}"
DIR="${FUZZ_BUILD_DIR:-$REPO_ROOT/build-fuzz}"
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
CLANGXX="${CLANGXX:-clang++}"
command -v "$CLANGXX" >/dev/null 2>&1 ||
  tj_die "$CLANGXX not found: the fuzzers need clang with libFuzzer (Debian: apt-get install clang)"

tj_lock
tj_select_python
tj_configure_args "$DIR" || exit 1
# Only the fuzzers: the library, tools and tests would all be built with clang's instrumentation.
TJ_CMAKE_ARGS+=("-DCMAKE_CXX_COMPILER=$CLANGXX" -DTRITON_JIT_BUILD_FUZZERS=ON -DTRITON_JIT_BUILD_TESTS=OFF
  -DTRITON_JIT_BUILD_TORCH=OFF -DTRITON_JIT_BUILD_BENCHMARKS=OFF -DTRITON_JIT_BUILD_EXAMPLES=OFF
  -DTRITON_JIT_BUILD_TOOLS=OFF)
tj_log "cmake ${TJ_CMAKE_ARGS[*]}"
mkdir -p "$DIR"
cmake "${TJ_CMAKE_ARGS[@]}" >"$DIR/configure.log" 2>&1 || {
  cat "$DIR/configure.log"
  tj_die "configure of $DIR failed"
}
tj_build_args "$DIR" fuzzers
tj_log "cmake ${TJ_BUILD_ARGS[*]}"
cmake "${TJ_BUILD_ARGS[@]}" || tj_die "build of the fuzzers failed (see above)"
tj_unlock

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$REPO_ROOT"/tests/fuzz/*_fuzzer.cpp; do
    n="$(basename "$f" .cpp)"
    [ -x "$DIR/tests/fuzz/$n" ] && names+=("$n")
  done
fi

# fuzz_one NAME: one fuzzer for its time; its log in DIR/NAME.log. Exit status: 0 when clean.
fuzz_one() {
  local n=$1 rc=0
  local exe="$DIR/tests/fuzz/$n" seeds="$REPO_ROOT/tests/fuzz/corpus/$n"
  local work="$DIR/corpus/$n" artifacts="$DIR/artifacts/$n"
  mkdir -p "$work" "$artifacts"
  tj_log "$n: ${SECONDS_EACH}s from $(find "$seeds" -type f | wc -l) seeds"
  # The time limit of `timeout` only backs up libFuzzer's own, should a run hang on exit.
  timeout --kill-after=10 "$((SECONDS_EACH + 120))" "$exe" "$work" "$seeds" \
    -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=5 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$DIR/$n.log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    tj_log "$n: clean ($(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$DIR/$n.log" | grep -Eo '[0-9]+$') inputs)"
  else
    tail -n 60 "$DIR/$n.log"
    tj_error "$n: exit status $rc; the input is in $artifacts (replay: $exe FILE)"
  fi
  return "$rc"
}

for n in "${names[@]}"; do
  [ -x "$DIR/tests/fuzz/$n" ] || tj_die "no fuzzer $n in $DIR/tests/fuzz"
done
# JOBS fuzzers at a time, one core each (libFuzzer runs one process on one thread): on CI's two
# cores the seven fuzzers take four rounds of FUZZ_SECONDS instead of seven, each fuzzing as long.
status=0
running=0
for n in "${names[@]}"; do
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$n" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
tj_log "fuzzing finished with exit status $status"
exit "$status"
