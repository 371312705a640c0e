#!/usr/bin/env bash
# Benchmarks of the libtorch operators (torch.ops.triton_jit_ops.*): latency from Python against
# Triton's Python launch and torch eager, GB/s of add/sum/softmax, TFLOP/s of matmul.
#
#   bench/torch/run-torch-bench.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR is a build with the torch layer (BUILD_DIR/torch/ops/libtriton_jit_ops.so). Runs
# BUILD_DIR/bench/torch/launch_tensor_bench first (launch overhead with at::Tensor arguments:
# raw cuLaunchKernel, raw pointers, fn(config, tensors...), triton_jit::torch::launch, alternating
# in one process; writes OUT_DIR/tensor_launch_bench.md and .json), then
# BUILD_DIR/bench/torch/ops_latency_cpp when it was built (C++: dispatcher vs direct launch vs
# at::add), then bench/torch/ops_latency.py, which writes OUT_DIR/torch_bench.md and
# OUT_DIR/ops_latency.png; the markdown tables are printed last.
#
# Environment: PYTHON (default python3: needs torch, triton; matplotlib for the plot),
# TORCH_BENCH_QUICK=1 (fewer sizes and repetitions), TORCH_BENCH_JSON=FILE (keep the raw results),
# BENCH_LAUNCHES (20000) and BENCH_BATCH (1000) for launch_tensor_bench.
# Exit status: 0 when it ran (or there is no GPU / no torch layer: a note is written), 1 when a
# benchmark failed, 2 for bad usage.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$HERE/../common.sh"
bench_start "$@"
LIB="$BUILD/torch/ops/libtriton_jit_ops.so"
CPP_EXE="$BUILD/bench/torch/ops_latency_cpp"
LAUNCH_EXE="$BUILD/bench/torch/launch_tensor_bench"
LAUNCH_MD="$OUT/tensor_launch_bench.md"
MD="$OUT/torch_bench.md"
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-$BUILD/triton-cache}
mkdir -p "$TRITON_CACHE_DIR"

if [[ ! -f "$LIB" ]]; then
  echo "run-torch-bench: $LIB not found (no libtorch at configure, or triton_jit_ops not built)" >&2
  printf '# libtriton_jit torch operators\n\nNot measured: %s was not built.\n' "$LIB" >"$MD"
  cat "$MD"
  exit 0
fi
if [[ -z "$PY" ]]; then
  printf '# libtriton_jit torch operators\n\nNot measured: no python3.\n' >"$MD"
  cat "$MD"
  exit 1
fi

# The operators' library and torch's libraries for the C++ benchmark; Python finds them itself.
TORCH_LIB=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null || true)
export LD_LIBRARY_PATH="$BUILD/torch/ops:$BUILD/torch:$BUILD${TORCH_LIB:+:$TORCH_LIB}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The Python bindings of the build, if any (not needed by the benchmark).
[[ -d "$BUILD/python" ]] && export PYTHONPATH="$BUILD/python${PYTHONPATH:+:$PYTHONPATH}"

# Launch overhead with tensor arguments: the kernels of bench/launch_gpu_bench.cpp, its own table.
if [[ -x "$LAUNCH_EXE" ]]; then
  echo "== launch_tensor_bench: raw cuLaunchKernel vs pointers vs at::Tensor arguments vs torch::launch"
  if ! "$LAUNCH_EXE" --launches "$LAUNCHES" --batch "$BATCH" \
      --out "$LAUNCH_MD" --json "$OUT/tensor_launch_bench.json"; then
    echo "run-torch-bench: launch_tensor_bench failed" >&2
    status=1
  fi
else
  echo "== launch_tensor_bench not built ($LAUNCH_EXE): tensor launch overhead skipped"
  printf '# libtriton_jit launch overhead with at::Tensor arguments\n\nNot measured: %s was not built.\n' \
    "$LAUNCH_EXE" >"$LAUNCH_MD"
fi

CPP_JSON=$(mktemp "${TMPDIR:-/tmp}/ops_latency_cpp.XXXXXX.json")
trap 'rm -f "$CPP_JSON"' EXIT
CPP_ARGS=()
if [[ -x "$CPP_EXE" ]]; then
  echo "== ops_latency_cpp: add from C++ (dispatcher, direct launch, at::add)"
  if "$CPP_EXE" --lib "$LIB" --json "$CPP_JSON"; then
    CPP_ARGS=(--cpp-json "$CPP_JSON")
  else
    echo "run-torch-bench: ops_latency_cpp failed" >&2
    status=1
  fi
else
  echo "== ops_latency_cpp not built ($CPP_EXE): C++ latency skipped"
fi

echo "== ops_latency.py: torch.ops.triton_jit_ops vs Triton's Python launch vs torch eager"
PY_ARGS=(--lib "$LIB" --out "$OUT" "${CPP_ARGS[@]}")
[[ "${TORCH_BENCH_QUICK:-0}" == 1 ]] && PY_ARGS+=(--quick)
[[ -n "${TORCH_BENCH_JSON:-}" ]] && PY_ARGS+=(--json "$TORCH_BENCH_JSON")
"$PY" "$HERE/ops_latency.py" "${PY_ARGS[@]}"
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "run-torch-bench: ops_latency.py failed (exit $rc)" >&2
  status=1
fi

echo
echo "================ tensor_launch_bench.md ================"
cat "$LAUNCH_MD" 2>/dev/null || echo "(no $LAUNCH_MD)"
echo
echo "================ torch_bench.md ================"
if [[ -f "$MD" ]]; then cat "$MD"; else echo "(no $MD)"; status=1; fi
exit $status
