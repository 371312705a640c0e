#!/usr/bin/env bash
# Every benchmark of a build, one after another, each writing its table into OUT_DIR (the
# benchmark phase of scripts/gpu-check.sh, callable alone on a GPU machine).
#
#   bench/run-all.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a build with the benchmarks (-DTRITON_JIT_BUILD_BENCHMARKS=ON, built: this script
# builds nothing). Writes OUT_DIR/bench.log (every benchmark's output) and the tables:
# launch (bench/run-gpu-bench.sh: OUT_DIR/launch_bench.md), decorated (bench/run-decorated-bench.sh:
# @triton.heuristics / @triton.autotune launches and tuning time, OUT_DIR/decorated_bench.md; at
# most 60 s), libentry (bench/run-libentry-bench.sh: a FlagGems LibEntry kernel's hit from C++ and
# from Python, OUT_DIR/libentry_bench.md; at most 60 s), torch (bench/torch/run-torch-bench.sh:
# the launch overhead with at::Tensor arguments, OUT_DIR/tensor_launch_bench.md, then the operators), python (bench/python/launch_bench.py:
# launches from Python, OUT_DIR/python_launch_bench.md; at most 120 s), install
# (bench/python/install_bench.py: triton_jit.install() on Liger-Kernel and fla, OUT_DIR/install_bench.md;
# at most 300 s), startup (time to first
# launch, bench/first_launch.py, and prepare's parallel speedup, bench/run-prepare-bench.sh:
# OUT_DIR/startup_bench.md), pool (bench/run-compile-pool-bench.sh: the compile worker pool's
# ratios against serial, OUT_DIR/compile_pool_bench.md; at most 180 s).
#
# Environment: BENCH_LIST (else GPU_CHECK_BENCH; default, also when empty:
# "launch,decorated,libentry,torch,python,install,startup,pool"; "none" runs none) picks the benchmarks.
# BENCH_BUDGET_S (default 600): the whole run keeps within it, each benchmark gets what is left.
# BENCH_PYTHON (else PYTHON, else python3): the python of the Python benchmarks (the benchmark
# scripts read PYTHON). BENCH_STATUS_FILE: where the one-line status of the run is written (for
# scripts/gpu-check.sh's summary); BENCH_PROGRESS_LOG: a file the progress lines are added to.
# BENCH_CONFIGURED=0: BUILD_DIR's configure failed (only the
# Python benchmark runs, on what an earlier build left).
# Exit status: 0 (each benchmark's result is in the status line); 2 for bad usage.
set -uo pipefail

if [[ $# -ne 2 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
  exit 2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
START_S=$SECONDS
BUDGET_S=${BENCH_BUDGET_S:-600}
PY=${BENCH_PYTHON:-${PYTHON:-python3}}
CONFIGURED=${BENCH_CONFIGURED:-1}
BENCHES=",${BENCH_LIST:-${GPU_CHECK_BENCH:-launch,decorated,libentry,torch,python,install,startup,pool}},"
BENCH_LOG="$OUT/bench.log"
export PYTHONUNBUFFERED=1

# A progress line, on stdout and at the end of BENCH_PROGRESS_LOG when set (gpu-check's build.log).
log() {
  local line="[bench/run-all $(( SECONDS - START_S ))s] $*"
  echo "$line"
  if [[ -n ${BENCH_PROGRESS_LOG:-} ]]; then echo "$line" >>"$BENCH_PROGRESS_LOG"; fi
}
# left RESERVE, status_of RC OK T WHAT
# shellcheck source=scripts/budget.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/budget.sh"

# run_script WHAT SCRIPT CAP: bench/SCRIPT BUILD OUT under the time left (at most CAP s, 0: no cap),
# its output appended to bench.log; sets RAN_STATUS to its result.
run_script() {
  local what=$1 script=$2 cap=$3 rc
  T=$(left 10)
  (( cap > 0 && T > cap )) && T=$cap
  log "$what: bench/$script $BUILD $OUT (at most ${T}s)"
  timeout --kill-after=10 "$T" bash "$ROOT/bench/$script" "$BUILD" "$OUT" 2>&1 | tee -a "$BENCH_LOG"
  rc=${PIPESTATUS[0]}
  RAN_STATUS=$(status_of "$rc" ran "$T" exit)
  log "$what: $RAN_STATUS"
}

BENCH_STATUS="not run: bench/run-gpu-bench.sh does not exist or launch is not in GPU_CHECK_BENCH"
: >"$BENCH_LOG"
if [[ -f "$ROOT/bench/run-gpu-bench.sh" && $CONFIGURED != 0 && $BENCHES == *,launch,* ]]; then
  run_script benchmark run-gpu-bench.sh 0
  BENCH_STATUS=$RAN_STATUS
fi
# Decorated kernels (OUT/decorated_bench.md): about 15 s on an H100 with a warm Triton cache; capped
# at 60 s so a hang cannot eat the later benchmarks' share.
if [[ -f "$ROOT/bench/run-decorated-bench.sh" && $CONFIGURED != 0 && $BENCHES == *,decorated,* ]]; then
  run_script "decorated benchmark" run-decorated-bench.sh 60
  BENCH_STATUS="$BENCH_STATUS; decorated: $RAN_STATUS"
fi
# A FlagGems LibEntry kernel's hit (OUT/libentry_bench.md): from C++ against raw cuLaunchKernel,
# from Python FlagGems' own LibEntry.run against triton_jit's front end; about 10 s on an H100 with
# a warm Triton cache, capped at 60 s.
if [[ -f "$ROOT/bench/run-libentry-bench.sh" && $CONFIGURED != 0 && $BENCHES == *,libentry,* ]]; then
  run_script "libentry benchmark" run-libentry-bench.sh 60
  BENCH_STATUS="$BENCH_STATUS; libentry: $RAN_STATUS"
fi
# The torch layer's benchmarks, when they exist: launch overhead with tensor arguments
# (OUT/tensor_launch_bench.md), the operators (OUT/torch_bench.md, OUT/ops_latency.png).
if [[ -f "$ROOT/bench/torch/run-torch-bench.sh" && $CONFIGURED != 0 && $BENCHES == *,torch,* ]]; then
  run_script "torch benchmark" torch/run-torch-bench.sh 0
  BENCH_STATUS="$BENCH_STATUS; torch operators: $RAN_STATUS"
fi

# The Python package's launches (OUT/python_launch_bench.md, .json, python_launch.png): host time
# per launch of triton_jit.jit(k)[grid] against Triton and raw cuLaunchKernel, with the C++ raw
# loop of the launch benchmark beside it; capped at 120 s.
if [[ -f "$ROOT/bench/python/launch_bench.py" && -d "$BUILD/python/triton_jit" && $BENCHES == *,python,* ]]; then
  T=$(left 10)
  (( T > 120 )) && T=120
  log "python benchmark: bench/python/launch_bench.py (at most ${T}s)"
  PYTHONPATH="$BUILD/python${PYTHONPATH:+:$PYTHONPATH}" timeout --kill-after=10 "$T" "$PY" \
    "$ROOT/bench/python/launch_bench.py" --out "$OUT/python_launch_bench.json" --plot "$OUT/python_launch.png" \
    --cpp-json "$OUT/launch_gpu_bench.json" >"$OUT/python_launch_bench.md" 2>>"$BENCH_LOG"
  rc=$?
  tee -a "$BENCH_LOG" <"$OUT/python_launch_bench.md"
  BENCH_STATUS="$BENCH_STATUS; python: $(status_of "$rc" ran "$T" exit)"
fi

# triton_jit.install() on Liger-Kernel's and fla's kernels (OUT/install_bench.md, .json): outputs
# bit-identical with and without, host time per launch of each kernel installed against Triton's,
# an eager training step; the libraries travel in .carry/wheels. Capped at 300 s (fla's autotuning
# compiles its configs on the first call).
if [[ -f "$ROOT/bench/python/install_bench.py" && -d "$BUILD/python/triton_jit" && $BENCHES == *,install,* ]]; then
  T=$(left 10)
  (( T > 300 )) && T=300
  log "install benchmark: bench/python/install_bench.py (at most ${T}s)"
  PYTHONPATH="$BUILD/python${PYTHONPATH:+:$PYTHONPATH}" timeout --kill-after=10 "$T" "$PY" \
    "$ROOT/bench/python/install_bench.py" --out "$OUT/install_bench.json" >"$OUT/install_bench.md" 2>>"$BENCH_LOG"
  rc=$?
  tee -a "$BENCH_LOG" <"$OUT/install_bench.md"
  BENCH_STATUS="$BENCH_STATUS; install: $(status_of "$rc" ran "$T" exit)"
fi

# Start-up: time to first launch (cold, warm index, pack only, Triton's Python) and prepare's
# parallel speedup, into OUT/startup_bench.md.
if [[ $CONFIGURED != 0 && $BENCHES == *,startup,* ]]; then
  T=$(left 10)
  log "startup benchmark: bench/first_launch.py and bench/run-prepare-bench.sh (at most ${T}s)"
  (
    echo "### Time from process start to the first completed launch"; echo
    # Three processes a mode: Triton's first call from Python takes 4-5 s a process (importing
    # torch and Triton), so its two modes alone take about 30 s; five a mode did not fit in 36 s.
    if timeout --kill-after=10 "$(( T / 2 ))" "$PY" "$ROOT/bench/first_launch.py" "$BUILD" --reps 3 \
      --markdown "$OUT/first_launch.part" >/dev/null; then
      cat "$OUT/first_launch.part"
    else
      echo "(bench/first_launch.py did not finish within $(( T / 2 ))s, or failed: see bench.log)"
    fi
    echo; echo "### prepare() of 32 specializations, parallel against serial"; echo; echo '```'
    timeout --kill-after=10 "$(( T / 2 ))" bash "$ROOT/bench/run-prepare-bench.sh" "$BUILD" 32
    echo '```'
  ) >"$OUT/startup_bench.md" 2>>"$BENCH_LOG"
  rm -f "$OUT/first_launch.part"
  tee -a "$BENCH_LOG" <"$OUT/startup_bench.md"
  BENCH_STATUS="$BENCH_STATUS; startup: ran"
fi

# The compile worker pool: prepare's first and second call, 16 threads missing different kernels,
# a lone miss, each against compiling one after another (about 40 s on 16 cores), into
# OUT/compile_pool_bench.md. Capped at 180 s.
if [[ -f "$ROOT/bench/run-compile-pool-bench.sh" && $CONFIGURED != 0 && $BENCHES == *,pool,* ]]; then
  T=$(left 10)
  (( T > 180 )) && T=180
  log "compile pool benchmark: bench/run-compile-pool-bench.sh $BUILD 32 16 (at most ${T}s)"
  {
    echo "### The compile worker pool against serial compiles"; echo; echo '```'
    timeout --kill-after=10 "$T" bash "$ROOT/bench/run-compile-pool-bench.sh" "$BUILD" 32 16
    rc=$?
    echo '```'
  } >"$OUT/compile_pool_bench.md" 2>>"$BENCH_LOG"
  tee -a "$BENCH_LOG" <"$OUT/compile_pool_bench.md"
  BENCH_STATUS="$BENCH_STATUS; pool: $(status_of "$rc" ran "$T" exit)"
  log "compile pool benchmark: $(status_of "$rc" ran "$T" exit)"
fi

log "benchmarks: $BENCH_STATUS"
if [[ -n ${BENCH_STATUS_FILE:-} ]]; then
  printf '%s\n' "$BENCH_STATUS" >"$BENCH_STATUS_FILE"
fi
exit 0
