#!/usr/bin/env bash
# GPU benchmark of decorated kernels (@triton.heuristics, @triton.autotune): raw cuLaunchKernel vs
# libtriton_jit vs Triton's Python launch, and the tuning time of a 3-config matmul.
#
#   bench/run-decorated-bench.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR is a build configured with -DTRITON_JIT_BUILD_BENCHMARKS=ON (decorated_launch_bench
# built). Runs BUILD_DIR/bench/decorated_launch_bench and bench/triton_python_decorated.py, then
# writes OUT_DIR/decorated_bench.md: one launch table (kernel | grid | raw µs | libtriton_jit µs |
# ratio | Triton Python µs | ratio, ratios against the raw loop) and one tuning table
# (libtriton_jit against Triton's autotuner). The raw results are kept as
# OUT_DIR/decorated_launch_bench.json and OUT_DIR/triton_python_decorated.json.
#
# Environment: PYTHON (default python3: needs torch and triton), BENCH_LAUNCHES (20000) and
# BENCH_BATCH (1000) per path. Without a GPU it writes a note and exits 0.
# Exit status: 0 when both measurements ran (or there is no GPU), 1 otherwise, 2 for bad usage.
set -uo pipefail

if [[ $# -ne 2 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
PY=${PYTHON:-$(command -v python3 || true)}
LAUNCHES=${BENCH_LAUNCHES:-20000}
BATCH=${BENCH_BATCH:-1000}
EXE="$BUILD/bench/decorated_launch_bench"
CPP_JSON="$OUT/decorated_launch_bench.json"
PY_JSON="$OUT/triton_python_decorated.json"
MD="$OUT/decorated_bench.md"
export PYTHONUNBUFFERED=1
rm -f "$CPP_JSON" "$PY_JSON"

status=0
echo "== decorated_launch_bench: raw cuLaunchKernel vs libtriton_jit ($LAUNCHES launches, batches of $BATCH)"
if [[ -x "$EXE" ]]; then
  # Its own markdown goes to stdout only: OUT_DIR gets the merged tables.
  if ! "$EXE" --launches "$LAUNCHES" --batch "$BATCH" --json "$CPP_JSON"; then
    echo "run-decorated-bench: decorated_launch_bench failed" >&2
    status=1
  fi
else
  echo "run-decorated-bench: $EXE not found (configure with -DTRITON_JIT_BUILD_BENCHMARKS=ON)" >&2
  echo "{\"error\": \"decorated_launch_bench was not built\"}" >"$CPP_JSON"
  status=1
fi

echo "== triton_python_decorated.py: Triton's kernel[grid](...) (${PY:-no python3})"
if [[ -n "$PY" ]]; then
  if ! "$PY" "$ROOT/bench/triton_python_decorated.py" --launches "$LAUNCHES" --batch "$BATCH" --out "$PY_JSON"; then
    echo "run-decorated-bench: triton_python_decorated.py failed" >&2
    status=1
  fi
else
  echo "{\"error\": \"no python3\"}" >"$PY_JSON"
  status=1
fi

echo "== $MD"
if ! "${PY:-python3}" "$ROOT/bench/merge_decorated_bench.py" "$CPP_JSON" "$PY_JSON" "$MD"; then
  echo "run-decorated-bench: could not merge the results" >&2
  printf '# libtriton_jit: decorated kernels\n\nThe results could not be merged; see %s and %s.\n' \
    "$(basename "$CPP_JSON")" "$(basename "$PY_JSON")" >"$MD"
  status=1
fi
exit $status
