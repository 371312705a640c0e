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

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_start "$@"
CPP_JSON="$OUT/decorated_launch_bench.json"
PY_JSON="$OUT/triton_python_decorated.json"
MD="$OUT/decorated_bench.md"
rm -f "$CPP_JSON" "$PY_JSON"

bench_cpp decorated_launch_bench "$CPP_JSON"
bench_python triton_python_decorated.py "$PY_JSON"

echo "== $MD"
if ! "${PY:-python3}" "$ROOT/bench/merge_decorated_bench.py" "$CPP_JSON" "$PY_JSON" "$MD"; then
  bench_merge_failed "libtriton_jit: decorated kernels" "$MD" "$CPP_JSON" "$PY_JSON"
fi
exit $status
