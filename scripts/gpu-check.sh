#!/usr/bin/env bash
# One call on a GPU machine: build everything, run every test (the GPU tests for real), run the
# GPU launch benchmark when bench/run-gpu-bench.sh exists, and write a summary.
#
#   scripts/gpu-check.sh OUT_DIR
#
# Writes into OUT_DIR: summary.md (device, date, versions, pass/fail counts, failures, the
# benchmark table), build.log (environment, configure, build), ctest.log (ctest's output) and
# bench.log; the benchmark script may add its own files. The build goes to build-gpu-check/ in
# the repository (GPU_CHECK_BUILD_DIR overrides), Triton's cache under it.
#
# Needs: python3 with triton (and pybind11) installed, CMake >= 3.25, a C++17 compiler, the CUDA
# toolkit headers, GoogleTest (package or /usr/src/googletest). No network. The whole run keeps
# within GPU_CHECK_BUDGET_S seconds (default 480): each phase gets what is left.
# GPU_CHECK_BENCH lists the benchmarks to run (default "launch,torch,startup"): launch
# (bench/run-gpu-bench.sh), torch (bench/torch/run-torch-bench.sh), startup (time to first
# launch, bench/first_launch.py, and prepare's parallel speedup, bench/run-prepare-bench.sh).
#
# Exit status: 0 when the build succeeded and no test failed; 1 otherwise; 2 for bad usage.
set -uo pipefail

if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi

START_S=$SECONDS
BUDGET_S=${GPU_CHECK_BUDGET_S:-480}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$1" || exit 2
OUT=$(cd "$1" && pwd)
BUILD=${GPU_CHECK_BUILD_DIR:-$ROOT/build-gpu-check}
JOBS=$(nproc 2>/dev/null || echo 4)
TEST_JOBS=${GPU_CHECK_TEST_JOBS:-$(( JOBS > 8 ? 8 : JOBS ))}
PY=$(command -v python3 || true)

export PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR="$BUILD/triton-cache"
mkdir -p "$BUILD" "$TRITON_CACHE_DIR"

BUILD_LOG="$OUT/build.log"
CTEST_LOG="$OUT/ctest.log"
BENCH_LOG="$OUT/bench.log"
SUMMARY="$OUT/summary.md"
: >"$BUILD_LOG"

log() { echo "[gpu-check $(( SECONDS - START_S ))s] $*" | tee -a "$BUILD_LOG"; }
# Seconds left for a phase, keeping `reserve` seconds for what follows (at least 30).
left() {
  local reserve=${1:-0} n
  n=$(( BUDGET_S - (SECONDS - START_S) - reserve ))
  (( n < 30 )) && n=30
  echo "$n"
}

cd "$ROOT" || exit 2

# ---- environment ----------------------------------------------------------------------------
DATE=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
GPU_LIST=$(nvidia-smi -L 2>/dev/null || echo "nvidia-smi failed or is missing: no NVIDIA driver?")
GPU_INFO=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>/dev/null ||
           echo "unavailable")
CUDA_DRIVER=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
PY_VERSIONS=$("${PY:-python3}" - <<'EOF' 2>&1
import sys
print("python", sys.version.split()[0], sys.executable)
for name in ("triton", "torch", "pybind11"):
    try:
        module = __import__(name)
        print(name, getattr(module, "__version__", "?"))
    except Exception as e:  # noqa: BLE001
        print(name, "not importable:", type(e).__name__, e)
EOF
)
TOOL_VERSIONS=$(
  echo "cmake $(cmake --version 2>/dev/null | head -1 | awk '{print $3}')"
  echo "ninja $(ninja --version 2>/dev/null || echo none)"
  echo "c++ $(c++ --version 2>/dev/null | head -1)"
  echo "nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || echo none)"
  echo "git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') ($(git -C "$ROOT" status --porcelain 2>/dev/null | wc -l) changed files)"
)
{
  echo "== date: $DATE"
  echo "== host: $(uname -srm), $JOBS cores"
  echo "== GPUs:"; echo "$GPU_LIST"
  echo "== name, driver, compute capability, memory: $GPU_INFO"
  echo "== CUDA version of the driver: ${CUDA_DRIVER:-?}"
  echo "== Python:"; echo "$PY_VERSIONS"
  echo "== tools:"; echo "$TOOL_VERSIONS"
} | tee -a "$BUILD_LOG"

# ---- configure and build --------------------------------------------------------------------
CMAKE_ARGS=(-S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release)
[[ -n "$PY" ]] && CMAKE_ARGS+=(-DPython3_EXECUTABLE="$PY")
command -v ninja >/dev/null 2>&1 && [[ ! -f "$BUILD/CMakeCache.txt" || -f "$BUILD/build.ninja" ]] && CMAKE_ARGS+=(-G Ninja)
if [[ -f "$ROOT/.carry/nlohmann/json.hpp" ]]; then
  CMAKE_ARGS+=(-DTRITON_JIT_BUILD_TOOLS=ON -DTRITON_JIT_NLOHMANN_JSON_INCLUDE_DIR="$ROOT/.carry")
  TOOLS_NOTE="on (nlohmann/json.hpp from .carry)"
else
  CMAKE_ARGS+=(-DTRITON_JIT_BUILD_TOOLS=OFF)
  TOOLS_NOTE="off (no .carry/nlohmann/json.hpp)"
fi

CONFIGURE_STATUS=ok
BENCH_NOTE="configured"
log "configure: cmake ${CMAKE_ARGS[*]}"
if ! timeout "$(left 300)" cmake "${CMAKE_ARGS[@]}" >>"$BUILD_LOG" 2>&1; then
  # bench/ is written by others and may be mid-change: a broken bench must not hide the tests.
  log "configure failed; retrying with -DTRITON_JIT_BUILD_BENCHMARKS=OFF"
  tail -30 "$BUILD_LOG"
  BENCH_NOTE="not built (configure failed with benchmarks on)"
  if ! timeout "$(left 300)" cmake "${CMAKE_ARGS[@]}" -DTRITON_JIT_BUILD_BENCHMARKS=OFF >>"$BUILD_LOG" 2>&1; then
    CONFIGURE_STATUS=failed
    log "configure failed again"
    tail -40 "$BUILD_LOG"
  fi
fi

BUILD_STATUS=skipped
if [[ $CONFIGURE_STATUS == ok ]]; then
  log "build: $JOBS jobs"
  KEEP_GOING=()
  [[ -f "$BUILD/build.ninja" ]] && KEEP_GOING=(-- -k 0) || KEEP_GOING=(-- -k)
  if timeout "$(left 240)" cmake --build "$BUILD" -j "$JOBS" "${KEEP_GOING[@]}" >>"$BUILD_LOG" 2>&1; then
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
  rc=$?
  case $rc in
    0) CTEST_STATUS=passed ;;
    124|137) CTEST_STATUS="timed out after ${T}s" ;;
    *) CTEST_STATUS="failed (ctest exit $rc)" ;;
  esac
  log "ctest: $CTEST_STATUS"
fi

# ---- benchmark ------------------------------------------------------------------------------
BENCHES=",${GPU_CHECK_BENCH:-launch,torch,startup},"
BENCH_STATUS="not run: bench/run-gpu-bench.sh does not exist or launch is not in GPU_CHECK_BENCH"
: >"$BENCH_LOG"
if [[ -f "$ROOT/bench/run-gpu-bench.sh" && $CONFIGURE_STATUS == ok && $BENCHES == *,launch,* ]]; then
  T=$(left 10)
  log "benchmark: bench/run-gpu-bench.sh $BUILD $OUT (at most ${T}s)"
  timeout --kill-after=10 "$T" bash "$ROOT/bench/run-gpu-bench.sh" "$BUILD" "$OUT" 2>&1 | tee "$BENCH_LOG"
  rc=$?
  case $rc in
    0) BENCH_STATUS="ran" ;;
    124|137) BENCH_STATUS="timed out after ${T}s" ;;
    *) BENCH_STATUS="failed (exit $rc)" ;;
  esac
  log "benchmark: $BENCH_STATUS"
fi
# The torch operators' benchmark (OUT/torch_bench.md, OUT/ops_latency.png), when it exists.
if [[ -f "$ROOT/bench/torch/run-torch-bench.sh" && $CONFIGURE_STATUS == ok && $BENCHES == *,torch,* ]]; then
  T=$(left 10)
  log "torch benchmark: bench/torch/run-torch-bench.sh $BUILD $OUT (at most ${T}s)"
  timeout --kill-after=10 "$T" bash "$ROOT/bench/torch/run-torch-bench.sh" "$BUILD" "$OUT" 2>&1 | tee -a "$BENCH_LOG"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) TORCH_BENCH_STATUS="ran" ;;
    124|137) TORCH_BENCH_STATUS="timed out after ${T}s" ;;
    *) TORCH_BENCH_STATUS="failed (exit $rc)" ;;
  esac
  BENCH_STATUS="$BENCH_STATUS; torch operators: $TORCH_BENCH_STATUS"
  log "torch benchmark: $TORCH_BENCH_STATUS"
fi

# Start-up: time to first launch (cold, warm index, pack only, Triton's Python) and prepare's
# parallel speedup, into OUT/startup_bench.md.
if [[ $CONFIGURE_STATUS == ok && $BENCHES == *,startup,* ]]; then
  T=$(left 10)
  log "startup benchmark: bench/first_launch.py and bench/run-prepare-bench.sh (at most ${T}s)"
  (
    echo "### Time from process start to the first completed launch"; echo
    timeout --kill-after=10 "$(( T * 2 / 5 ))" "${PY:-python3}" "$ROOT/bench/first_launch.py" "$BUILD" --reps 7 \
      --markdown "$OUT/first_launch.part" >/dev/null && cat "$OUT/first_launch.part"
    echo; echo "### prepare() of 32 specializations, parallel against serial"; echo; echo '```'
    timeout --kill-after=10 "$(( T * 3 / 5 ))" bash "$ROOT/bench/run-prepare-bench.sh" "$BUILD" 32
    echo '```'
  ) >"$OUT/startup_bench.md" 2>>"$BENCH_LOG"
  rm -f "$OUT/first_launch.part"
  cat "$OUT/startup_bench.md" | tee -a "$BENCH_LOG"
  BENCH_STATUS="$BENCH_STATUS; startup: ran"
fi

# ---- summary --------------------------------------------------------------------------------
export GC_DATE="$DATE" GC_GPU_LIST="$GPU_LIST" GC_GPU_INFO="$GPU_INFO" GC_CUDA_DRIVER="${CUDA_DRIVER:-?}"
export GC_PY_VERSIONS="$PY_VERSIONS" GC_TOOL_VERSIONS="$TOOL_VERSIONS" GC_CONFIGURE="$CONFIGURE_STATUS"
export GC_BUILD="$BUILD_STATUS" GC_CTEST="$CTEST_STATUS" GC_BENCH="$BENCH_STATUS" GC_BENCH_NOTE="$BENCH_NOTE"
export GC_TOOLS="$TOOLS_NOTE" GC_ELAPSED=$(( SECONDS - START_S )) GC_OUT="$OUT" GC_BUILD_DIR="$BUILD"
"${PY:-python3}" - >"$SUMMARY" <<'EOF'
import glob, os, re
import xml.etree.ElementTree as ET

e = os.environ
out, build = e["GC_OUT"], e["GC_BUILD_DIR"]
ctest_log = open(os.path.join(out, "ctest.log"), errors="replace").read()

# One line per finished test: "12/40 Test #7: name ....   Passed    1.23 sec"
results = {}
for line in ctest_log.splitlines():
    # Names may hold spaces ("... # GetParam() = ..."); the dots pad up to the status.
    m = re.match(r"^\s*\d+/\d+ Test\s+#\d+: (.*?)\s*\.*\s*\**(Passed|Failed|Skipped|Not Run|Timeout|Disabled|"
                 r"Exception.*?|[A-Z][A-Za-z ]*?)\s+[\d.]+ sec\s*$", line)
    if m:
        results[m.group(1)] = m.group(2).strip()
counts = {"passed": 0, "failed": 0, "skipped": 0}
failed, skipped = [], []
for name, status in results.items():
    if status == "Passed":
        counts["passed"] += 1
    elif status in ("Skipped", "Not Run"):
        counts["skipped"] += 1
        skipped.append(name)
    else:
        counts["failed"] += 1
        failed.append(f"{name} ({status})")
total_line = re.search(r"^\d+% tests passed, \d+ tests? failed out of \d+.*$", ctest_log, re.M)

# Lines the GPU tests print about what they saw (shared memory, scratch sizes, expected errors),
# and skip reasons, from the JUnit file's captured output.
notes, skip_reasons = [], {}
junit = os.path.join(build, "ctest-junit.xml")
if os.path.exists(junit):
    try:
        for case in ET.parse(junit).getroot().iter("testcase"):
            name = case.get("name", "")
            text = "".join((n.text or "") for n in case.iter("system-out"))
            for line in text.splitlines():
                s = line.strip()
                if re.match(r"^(matmul |scale_shift_2d_kernel|graph of |LaunchConfigError as expected|ArchitectureMismatchError as expected)", s):
                    notes.append(f"{name}: {s}")
                if name in skipped and s and not s.startswith("[") and "Skipped" not in s and name not in skip_reasons:
                    if "no CUDA GPU" in s or "need" in s or "allows" in s:
                        skip_reasons[name] = s
    except ET.ParseError as exc:
        notes.append(f"(could not parse {junit}: {exc})")

print("# libtriton_jit GPU check\n")
print(f"- date: {e['GC_DATE']}")
print(f"- device: {e['GC_GPU_LIST'].strip()}")
print(f"- name, driver, compute capability, memory: {e['GC_GPU_INFO'].strip()}; CUDA (driver) {e['GC_CUDA_DRIVER']}")
for line in (e["GC_PY_VERSIONS"] + "\n" + e["GC_TOOL_VERSIONS"]).splitlines():
    if line.strip():
        print(f"- {line.strip()}")
print(f"- command-line tool: {e['GC_TOOLS']}; benchmarks: {e['GC_BENCH_NOTE']}")
print(f"- configure: {e['GC_CONFIGURE']}, build: {e['GC_BUILD']}, ctest: {e['GC_CTEST']}, "
      f"elapsed {e['GC_ELAPSED']} s\n")

if e["GC_BUILD"] == "failed":
    lines = [l.rstrip() for l in open(os.path.join(out, "build.log"), errors="replace")]
    errs = [l for l in lines if l.startswith("FAILED:") or ": error:" in l or "CMake Error" in l]
    print("## Build errors (build kept going; what built was tested)\n")
    print("```")
    print("\n".join(errs[:20]) or "(see build.log)")
    print("```\n")

print("## Tests\n")
print(f"**{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped** "
      f"({len(results)} finished)" + (f" — ctest: `{total_line.group(0)}`" if total_line else ""))
gpu = {k: v for k, v in results.items() if k.startswith("gpu.")}
if gpu:
    gp = sum(v == "Passed" for v in gpu.values())
    gs = sum(v in ("Skipped", "Not Run") for v in gpu.values())
    print(f"\nGPU tests (gpu.*): {gp} passed, {len(gpu) - gp - gs} failed, {gs} skipped")
if failed:
    print("\nFailed:\n")
    for f in failed:
        print(f"- {f}")
if skipped:
    print("\nSkipped:\n")
    by_reason = {}
    for s in skipped:
        by_reason.setdefault(skip_reasons.get(s, "(reason not captured)"), []).append(s)
    for reason, names in by_reason.items():
        print(f"- {len(names)} test(s), {reason}: {', '.join(names)}")
if notes:
    print("\nWhat the GPU tests saw:\n")
    for n in notes:
        print(f"- {n}")

print("\n## Benchmark\n")
print(f"{e['GC_BENCH']}\n")
tables = [p for p in sorted(glob.glob(os.path.join(out, "*.md"))) if os.path.basename(p) != "summary.md"]
shown = False
for p in tables:
    print(f"From {os.path.basename(p)}:\n")
    print(open(p, errors="replace").read().strip() + "\n")
    shown = True
if not shown:
    bench_log = os.path.join(out, "bench.log")
    rows = [l.rstrip() for l in open(bench_log, errors="replace")] if os.path.exists(bench_log) else []
    rows = [l for l in rows if l.lstrip().startswith("|")]
    if rows:
        print("\n".join(rows))
    else:
        print("(no benchmark table produced)")
EOF

echo
cat "$SUMMARY"
log "done; files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
if [[ $CONFIGURE_STATUS == ok && $BUILD_STATUS == ok && $CTEST_STATUS == passed ]]; then
  exit 0
fi
exit 1
