#!/usr/bin/env bash
# One call on a GPU machine: build everything, run every test (the GPU tests for real), run the
# GPU benchmarks, and write a summary.
#
#   scripts/gpu-check.sh OUT_DIR
#   scripts/gpu-check.sh --detect     (prints which GPU it finds, and nothing else)
#
# The GPU is found by scripts/gpu_platform.sh: an NVIDIA one (nvidia-smi lists it), else an AMD one
# (/dev/kfd, a gfx processor from rocminfo, rocm-smi or the KFD topology, and libamdhip64). On an
# AMD machine the runtime launches through that HIP runtime (TRITON_JIT_HIP_LIBRARY is set to it)
# on the device's own target, hip:gfxNNN, which the summary names; compute-sanitizer (NVIDIA's) is
# not run there. With neither, the run says so and its GPU tests skip.
# Writes into OUT_DIR: summary.md (device, date, versions, pass/fail counts, failures, the
# benchmark tables; written by scripts/gpu_check_summary.py), build.log (environment, configure,
# build), ctest.log (ctest's output) and bench.log; the benchmark scripts may add their own files.
# The build goes to build-gpu-check/ in the repository (GPU_CHECK_BUILD_DIR overrides), Triton's
# cache under it.
#
# Python, configure and build arguments come from scripts/common.sh: TRITON_JIT_PYTHON, else
# python3 when it imports triton (used as is: the usual case on a GPU machine), else the
# repository's .venv. Missing Debian packages are only reported (no network: TRITON_JIT_SKIP_APT
# defaults to 1 here). Needs CMake >= 3.25, a C++17 compiler, the CUDA toolkit headers,
# GoogleTest (package or /usr/src/googletest), pybind11. The whole run keeps within
# GPU_CHECK_BUDGET_S seconds (default 480): each phase gets what is left. GPU_CHECK_TEST_JOBS
# tests run at once (default: the cores, at most 8).
# The benchmarks run last, through bench/run-all.sh (which says what each writes into OUT_DIR),
# with what is left of the budget. GPU_CHECK_BENCH lists the benchmarks to run (default, also when
# empty: "launch,decorated,libentry,torch,python,install,startup,pool"; "none" runs none).
#
# After ctest, compute-sanitizer (memcheck, racecheck, synccheck: GPU_CHECK_SANITIZE, a comma list,
# "none" skips) runs the GPU test binary whole on a subset of its tests (GPU_CHECK_SANITIZER_FILTER,
# a gtest filter), each tool for at most GPU_CHECK_SANITIZER_S seconds (default 90), into
# OUT_DIR/sanitizer-TOOL.log; the summary has a line per tool.
#
# Exit status: 0 when the build succeeded, no test failed and compute-sanitizer found nothing (a
# tool that ran out of time is reported, not failed); 1 otherwise; 2 for bad usage.
set -uo pipefail

if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
  exit 2
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/gpu_platform.sh
source "$HERE/gpu_platform.sh"
tj_detect_gpu_platform
if [[ $1 == --detect ]]; then
  echo "platform: $GPU_PLATFORM"
  echo "$GPU_PLATFORM_NOTE"
  exit 0
fi
# shellcheck source=scripts/common.sh
source "$HERE/common.sh"
# A GPU machine has no network: report missing Debian packages, never wait on apt-get.
export TRITON_JIT_SKIP_APT=${TRITON_JIT_SKIP_APT:-1}

START_S=$SECONDS
BUDGET_S=${GPU_CHECK_BUDGET_S:-480}
ROOT=$REPO_ROOT
mkdir -p "$1" || exit 2
OUT=$(cd "$1" && pwd)
BUILD=${GPU_CHECK_BUILD_DIR:-$ROOT/build-gpu-check}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
TEST_JOBS=${GPU_CHECK_TEST_JOBS:-$(( JOBS > 8 ? 8 : JOBS ))}
SUMMARY_PY="$HERE/gpu_check_summary.py"

export PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR="$BUILD/triton-cache"
mkdir -p "$BUILD" "$TRITON_CACHE_DIR"

BUILD_LOG="$OUT/build.log"
CTEST_LOG="$OUT/ctest.log"
SUMMARY="$OUT/summary.md"
: >"$BUILD_LOG"

log() { echo "[gpu-check $(( SECONDS - START_S ))s] $*" | tee -a "$BUILD_LOG"; }
# left RESERVE, status_of RC OK T WHAT
# shellcheck source=scripts/budget.sh
source "$HERE/budget.sh"

cd "$ROOT" || exit 2

# ---- python and system packages (scripts/common.sh) -----------------------------------------
# tj_select_python exits when no python fits: run it in a subshell, so that a failure still ends
# in a summary (with python3 as is, as far as it gets).
selection=$( (tj_lock && tj_select_python && printf 'TJ_PYTHON=%s\n' "$TJ_PYTHON") 2>&1 )
printf '%s\n' "$selection" | grep -v '^TJ_PYTHON=' | tee -a "$BUILD_LOG"
TJ_PYTHON=$(printf '%s\n' "$selection" | sed -n 's/^TJ_PYTHON=//p')
if [[ -z $TJ_PYTHON ]]; then
  TJ_PYTHON=$(command -v python3 || true)
  log "no python with triton found: going on with ${TJ_PYTHON:-no python3 at all} (kernels cannot compile)"
fi
PY=${TJ_PYTHON:-python3}
# The benchmark scripts' python (their default is python3).
export PYTHON=${PYTHON:-$PY}
tj_ensure_system_packages 2>&1 | tee -a "$BUILD_LOG"

# ---- carried wheels -------------------------------------------------------------------------
# A GPU machine reaches no registry: libraries the GPU tests replay (FlagGems and what it needs)
# travel as wheels in GPU_CHECK_WHEELS (default .carry/wheels, git-ignored) and are installed,
# without dependencies, into the environment of the python the tests use (the machine is lent
# fresh for each session), so that every process the tests start sees them. Their tests skip
# without them.
WHEELS=${GPU_CHECK_WHEELS:-$ROOT/.carry/wheels}
WHEELS_NOTE="none (no wheels in $WHEELS)"
if compgen -G "$WHEELS/*.whl" >/dev/null; then
  if "$PY" -m pip install --no-index --no-deps "$WHEELS"/*.whl >>"$BUILD_LOG" 2>&1; then
    export FLAGGEMS_CACHE_DIR="$BUILD/flaggems"
    WHEELS_NOTE="$(cd "$WHEELS" && ls -- *.whl | tr '\n' ' ')"
  else
    WHEELS_NOTE="pip could not install the wheels of $WHEELS (see build.log)"
  fi
fi

# ---- environment ----------------------------------------------------------------------------
DATE=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
if [[ $GPU_PLATFORM == rocm ]]; then
  # The runtime loads this HIP runtime where libcuda finds no GPU, and compiles for the device's
  # own target (no TRITON_JIT_TARGET: the tests decide their targets themselves).
  export TRITON_JIT_HIP_LIBRARY=$GPU_HIP_LIBRARY
  GPU_LIST=$(rocm-smi --showproductname 2>/dev/null | grep -E 'GPU\[[0-9]+\]' ||
             echo "AMD GPU(s), target hip:$GPU_ARCH (rocm-smi unavailable)")
  GPU_INFO="target hip:$GPU_ARCH; $(rocm-smi --showdriverversion 2>/dev/null | sed -n 's/.*Driver version: *//p' |
                                     head -1 || true)"
  CUDA_DRIVER="none (AMD GPU: $GPU_PLATFORM_NOTE)"
else
  GPU_LIST=$(nvidia-smi -L 2>/dev/null || echo "nvidia-smi failed or is missing: no NVIDIA driver? ($GPU_PLATFORM_NOTE)")
  GPU_INFO=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>/dev/null ||
             echo "unavailable")
  CUDA_DRIVER=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
fi
PY_VERSIONS=$("$PY" "$SUMMARY_PY" versions 2>&1)
TOOL_VERSIONS=$(
  echo "cmake $(cmake --version 2>/dev/null | head -1 | awk '{print $3}')"
  echo "ninja $(ninja --version 2>/dev/null || echo none)"
  echo "c++ $(c++ --version 2>/dev/null | head -1)"
  echo "nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || echo none)"
  echo "git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') ($(git -C "$ROOT" status --porcelain 2>/dev/null | wc -l) changed files)"
)
{
  echo "== date: $DATE"
  echo "== GPU platform: $GPU_PLATFORM_NOTE"
  echo "== host: $(uname -srm), $JOBS cores"
  echo "== GPUs:"; echo "$GPU_LIST"
  echo "== name, driver, compute capability, memory: $GPU_INFO"
  echo "== CUDA version of the driver: ${CUDA_DRIVER:-?}"
  echo "== Python:"; echo "$PY_VERSIONS"
  echo "== tools:"; echo "$TOOL_VERSIONS"
  echo "== carried wheels: $WHEELS_NOTE"
} | tee -a "$BUILD_LOG"

# ---- configure and build (arguments from scripts/common.sh) --------------------------------
if [[ -f "$ROOT/.carry/nlohmann/json.hpp" ]]; then
  TOOLS_ARGS=(-DTRITON_JIT_BUILD_TOOLS=ON -DTRITON_JIT_NLOHMANN_JSON_INCLUDE_DIR="$ROOT/.carry")
  TOOLS_NOTE="on (nlohmann/json.hpp from .carry)"
else
  TOOLS_ARGS=(-DTRITON_JIT_BUILD_TOOLS=OFF)
  TOOLS_NOTE="off (no .carry/nlohmann/json.hpp)"
fi
# configure [cmake args...]: with the time left, keeping 300 s for the rest.
configure() { timeout "$(left 300)" cmake "${TJ_CMAKE_ARGS[@]}" "${TOOLS_ARGS[@]}" "$@" >>"$BUILD_LOG" 2>&1; }

CONFIGURE_STATUS=ok
BENCH_NOTE="configured"
if ! tj_configure_args "$BUILD" >>"$BUILD_LOG" 2>&1; then
  CONFIGURE_STATUS=failed
  log "configure: not run"
  tail -5 "$BUILD_LOG"
else
  log "configure: cmake ${TJ_CMAKE_ARGS[*]} ${TOOLS_ARGS[*]}"
  if ! configure; then
    # bench/ is written by others and may be mid-change: a broken bench must not hide the tests.
    log "configure failed; retrying with -DTRITON_JIT_BUILD_BENCHMARKS=OFF"
    tail -30 "$BUILD_LOG"
    BENCH_NOTE="not built (configure failed with benchmarks on)"
    if ! configure -DTRITON_JIT_BUILD_BENCHMARKS=OFF; then
      CONFIGURE_STATUS=failed
      log "configure failed again"
      tail -40 "$BUILD_LOG"
    fi
  fi
fi

BUILD_STATUS=skipped
if [[ $CONFIGURE_STATUS == ok ]]; then
  log "build: $JOBS jobs"
  tj_build_args "$BUILD"
  if [[ -f "$BUILD/build.ninja" ]]; then KEEP_GOING=(-- -k 0); else KEEP_GOING=(-- -k); fi
  if timeout "$(left 240)" cmake "${TJ_BUILD_ARGS[@]}" "${KEEP_GOING[@]}" >>"$BUILD_LOG" 2>&1; then
    BUILD_STATUS=ok
  else
    BUILD_STATUS=failed
    log "build failed (kept going: the targets that built are tested); errors:"
    grep -E "error|FAILED|Error [0-9]" "$BUILD_LOG" | head -40
  fi
  log "build: $BUILD_STATUS"
fi

# ---- tests ----------------------------------------------------------------------------------
CTEST_STATUS=skipped
: >"$CTEST_LOG"
if [[ $CONFIGURE_STATUS == ok ]]; then
  T=$(left 90)
  log "ctest: all tests, $TEST_JOBS at a time, at most ${T}s"
  (cd "$BUILD" && timeout --kill-after=15 "$T" ctest --output-on-failure -j "$TEST_JOBS" --timeout 300 \
      --output-junit "$BUILD/ctest-junit.xml") 2>&1 | tee "$CTEST_LOG"
  rc=${PIPESTATUS[0]}
  CTEST_STATUS=$(status_of "$rc" passed "$T" "ctest exit")
  log "ctest: $CTEST_STATUS"
fi

# ---- compute-sanitizer ----------------------------------------------------------------------
# The GPU test binary run whole, in one process, under each tool on a subset of its tests (the
# kernels, vector adds, launch arguments and decorated kernels), each tool capped at
# GPU_CHECK_SANITIZER_S seconds (and at what the budget leaves): OUT/sanitizer-TOOL.log, and a
# line per tool in the summary. Triton's cache is warm from ctest, so no kernel compiles again.
SANITIZER_TOOLS=${GPU_CHECK_SANITIZE:-memcheck,racecheck,synccheck}
SANITIZER_FILTER=${GPU_CHECK_SANITIZER_FILTER:-'GpuVectorAdd*:GpuKernels*:GpuLaunchArgs*:GpuDecorators*'}
SANITIZER_STATUS="not run"
GPU_TESTS_BIN="$BUILD/tests/gpu/triton_jit_gpu_tests"
CSAN=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [[ -z $CSAN && -x $c ]] && CSAN=$c
done
if [[ $SANITIZER_TOOLS == none ]]; then
  SANITIZER_STATUS="not run (GPU_CHECK_SANITIZE=none)"
elif [[ $GPU_PLATFORM == rocm ]]; then
  SANITIZER_STATUS="not run: compute-sanitizer checks NVIDIA GPUs; this one is AMD's (hip:$GPU_ARCH)"
elif [[ -z $CSAN ]]; then
  SANITIZER_STATUS="not run: compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
elif [[ ! -x $GPU_TESTS_BIN ]]; then
  SANITIZER_STATUS="not run: $GPU_TESTS_BIN was not built"
else
  SANITIZER_STATUS=""
  IFS=, read -r -a tools <<<"$SANITIZER_TOOLS"
  for tool in "${tools[@]}"; do
    T=$(left 120)
    (( T > ${GPU_CHECK_SANITIZER_S:-90} )) && T=${GPU_CHECK_SANITIZER_S:-90}
    log "compute-sanitizer --tool $tool: $SANITIZER_FILTER (at most ${T}s)"
    # --error-exitcode: a finding fails the run even when every test passed.
    # application-only: Triton's ptxas and other helpers run unchecked.
    timeout --kill-after=15 "$T" "$CSAN" --tool "$tool" --error-exitcode 99 --target-processes application-only \
      "$GPU_TESTS_BIN" --gtest_filter="$SANITIZER_FILTER" >"$OUT/sanitizer-$tool.log" 2>&1
    rc=$?
    errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$OUT/sanitizer-$tool.log" | tail -1)
    passed=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$OUT/sanitizer-$tool.log" | tail -1)
    failed=$(sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$OUT/sanitizer-$tool.log" | tail -1)
    case $rc in
      0) result="clean (${errors:-0} errors, ${passed:-?} tests passed)" ;;
      99) result="${errors:-?} errors (${passed:-0} tests passed${failed:+, $failed failed})" ;;
      124|137) result="timed out after ${T}s (${errors:-no} errors reported so far)" ;;
      *) result="exit status $rc (${errors:-?} errors, ${passed:-0} tests passed${failed:+, $failed failed})" ;;
    esac
    log "compute-sanitizer $tool: $result"
    SANITIZER_STATUS+="${SANITIZER_STATUS:+; }$tool: $result"
  done
fi

# ---- benchmarks (bench/run-all.sh) ----------------------------------------------------------
# Each benchmark writes its table into OUT and its output into OUT/bench.log; the status line
# comes back through a file for the summary.
BENCH_STATUS_FILE="$BUILD/bench-status.txt"
rm -f "$BENCH_STATUS_FILE"
if [[ $CONFIGURE_STATUS == ok ]]; then BENCH_CONFIGURED=1; else BENCH_CONFIGURED=0; fi
BENCH_LIST=${GPU_CHECK_BENCH:-} BENCH_BUDGET_S=$(( BUDGET_S - (SECONDS - START_S) )) BENCH_PYTHON="$PY" \
  BENCH_STATUS_FILE="$BENCH_STATUS_FILE" BENCH_PROGRESS_LOG="$BUILD_LOG" BENCH_CONFIGURED=$BENCH_CONFIGURED \
  bash "$ROOT/bench/run-all.sh" "$BUILD" "$OUT"
BENCH_STATUS=$(cat "$BENCH_STATUS_FILE" 2>/dev/null ||
               echo "not run: bench/run-all.sh failed before writing its status (see bench.log)")

# ---- summary (scripts/gpu_check_summary.py) -------------------------------------------------
: >"$SUMMARY"
"$PY" "$SUMMARY_PY" write --out "$OUT" --build-dir "$BUILD" --summary "$SUMMARY" \
  --date "$DATE" --gpu-list "$GPU_LIST" --gpu-info "$GPU_INFO" --cuda-driver "${CUDA_DRIVER:-?}" \
  --python-versions "$PY_VERSIONS" --tool-versions "$TOOL_VERSIONS" --tools "$TOOLS_NOTE" \
  --bench-note "$BENCH_NOTE" --configure "$CONFIGURE_STATUS" --build "$BUILD_STATUS" \
  --ctest "$CTEST_STATUS" --sanitizer "$SANITIZER_STATUS" --bench "$BENCH_STATUS" \
  --elapsed "$(( SECONDS - START_S ))" ||
  log "summary: scripts/gpu_check_summary.py failed"

echo
cat "$SUMMARY"
log "done; files in $OUT: $(cd "$OUT" && printf '%s ' *)"
# A compute-sanitizer finding or failure fails the check; a tool that ran out of time does not.
if [[ $CONFIGURE_STATUS == ok && $BUILD_STATUS == ok && $CTEST_STATUS == passed &&
      ! $SANITIZER_STATUS =~ (errors \(|exit status) ]]; then
  exit 0
fi
exit 1
