#!/usr/bin/env bash
# GPU benchmark of a FlagGems LibEntry kernel's hit: from C++ against a raw cuLaunchKernel of the
# cubin LibEntry froze, and from Python: FlagGems' own hit path (LibEntry.run), triton_jit's front
# end and Triton's JITFunction launch of the same kernel (bench/kernels/libentry_kernels.py).
#
#   bench/run-libentry-bench.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR is a build configured with -DTRITON_JIT_BUILD_BENCHMARKS=ON (libentry_launch_bench
# built; BUILD_DIR/python holds the triton_jit package). Runs BUILD_DIR/bench/libentry_launch_bench
# and bench/python/libentry_python_bench.py one after the other and writes OUT_DIR/libentry_bench.md
# (the C++ table, then the Python one) with their JSON results as OUT_DIR/libentry_launch_bench.json
# and OUT_DIR/libentry_python_bench.json. About 10 s on an H100 with a warm Triton cache.
#
# Environment: PYTHON (default python3: needs torch and triton; flag_gems where installed, else
# FlagGems' libentry.py with its device runtime stubbed), BENCH_LAUNCHES (20000) and BENCH_BATCH
# (1000) per path. Without a GPU each part writes a note and exits 0.
# Exit status: 0 when both measurements ran (or there is no GPU), 1 otherwise, 2 for bad usage.
set -uo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_start "$@"
CPP_JSON="$OUT/libentry_launch_bench.json"
PY_JSON="$OUT/libentry_python_bench.json"
MD="$OUT/libentry_bench.md"
CPP_MD="$OUT/libentry_launch_bench.part"
PY_MD="$OUT/libentry_python_bench.part"
rm -f "$CPP_JSON" "$PY_JSON" "$CPP_MD" "$PY_MD"

echo "== libentry_launch_bench: raw cuLaunchKernel vs libtriton_jit on a LibEntry hit ($LAUNCHES launches, batches of $BATCH)"
EXE="$BUILD/bench/libentry_launch_bench"
if [[ -x "$EXE" ]]; then
  if ! "$EXE" --launches "$LAUNCHES" --batch "$BATCH" --json "$CPP_JSON" --out "$CPP_MD"; then
    echo "$NAME: libentry_launch_bench failed" >&2
    status=1
  fi
else
  echo "$NAME: $EXE not found (configure with -DTRITON_JIT_BUILD_BENCHMARKS=ON)" >&2
  status=1
fi

echo "== libentry_python_bench.py: FlagGems' LibEntry.run vs triton_jit vs Triton (${PY:-no python3})"
if [[ -n "$PY" ]]; then
  if ! PYTHONPATH="$BUILD/python${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$ROOT/bench/python/libentry_python_bench.py" \
      --launches "$LAUNCHES" --batch "$BATCH" --out "$PY_JSON" >"$PY_MD"; then
    echo "$NAME: libentry_python_bench.py failed" >&2
    status=1
  fi
  cat "$PY_MD"
else
  status=1
fi

echo "== $MD"
{
  echo "# libtriton_jit: FlagGems LibEntry hits"; echo
  if [[ -s "$CPP_MD" ]]; then cat "$CPP_MD"; else echo "(libentry_launch_bench wrote no table: see bench.log)"; fi
  echo
  if [[ -s "$PY_MD" ]]; then cat "$PY_MD"; else echo "(libentry_python_bench.py wrote no table: see bench.log)"; fi
} >"$MD"
rm -f "$CPP_MD" "$PY_MD"
exit $status
