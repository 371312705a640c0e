#!/usr/bin/env bash
# GPU launch-overhead benchmark: raw cuLaunchKernel vs libtriton_jit vs Triton's Python launch.
#
#   bench/run-gpu-bench.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR is a build configured with -DTRITON_JIT_BUILD_BENCHMARKS=ON (launch_gpu_bench built).
# Runs BUILD_DIR/bench/launch_gpu_bench (raw cuLaunchKernel over the same cubin, and the cached
# fn(config, args...)) and bench/triton_python_launch.py (kernel[grid](...)), then writes
# OUT_DIR/launch_bench.md: one table, kernel args | raw cuLaunchKernel µs | libtriton_jit µs |
# ratio | Triton Python µs | ratio, ratios against the raw loop. The raw results are kept as
# OUT_DIR/launch_gpu_bench.json and OUT_DIR/triton_python_launch.json.
#
# Environment: PYTHON (default python3: needs torch and triton), BENCH_LAUNCHES (20000) and
# BENCH_BATCH (1000) per path and kernel. Without a GPU it writes a note and exits 0.
# Exit status: 0 when both measurements ran (or there is no GPU), 1 otherwise, 2 for bad usage.
set -uo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_start "$@"
CPP_JSON="$OUT/launch_gpu_bench.json"
PY_JSON="$OUT/triton_python_launch.json"
MD="$OUT/launch_bench.md"
rm -f "$CPP_JSON" "$PY_JSON"

bench_cpp launch_gpu_bench "$CPP_JSON"
bench_python triton_python_launch.py "$PY_JSON"

# Merge the two JSON files into one table.
merge() {
  "${PY:-python3}" - "$CPP_JSON" "$PY_JSON" "$MD" <<'PYEOF'
import json, sys

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:  # noqa: BLE001
        return {"error": f"no result ({e.__class__.__name__}: {e})"}

cpp, py, out = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
lines = ["# libtriton_jit launch overhead", ""]
if "error" in cpp:
    lines.append(f"Not measured: {cpp['error']}.")
    if "error" not in py:
        lines.append("")
        lines.append("Triton Python launch alone: " + ", ".join(
            f"{r['kernel']} {r['us_per_launch']:.3f} µs" for r in py.get("rows", [])))
else:
    dv = cpp.get("driver_version", 0)
    lines.append(f"Device: {cpp.get('device', '?')} ({cpp.get('arch', '?')}), CUDA driver {dv // 1000}.{dv % 1000 // 10}; "
                 f"Triton {cpp.get('triton_version', '?')}"
                 + (f", torch {py['torch_version']}" if "torch_version" in py else "")
                 + f"; {cpp.get('date', '?')}")
    lines.append("")
    lines.append(f"Host time per launch (µs): one program per launch on the default stream; median of "
                 f"{cpp['launches'] // cpp['batch']} batches of {cpp['batch']} launches, each timed from its first "
                 f"launch to the return of its last, the stream synchronized (untimed) after each. "
                 f"Ratios are against the raw cuLaunchKernel loop over the same cubin.")
    lines.append("")
    lines.append("| kernel args | raw cuLaunchKernel µs | libtriton_jit µs | ratio | Triton Python µs | ratio |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    prow = {r["kernel"]: r for r in py.get("rows", [])}
    same = []
    for r in cpp["rows"]:
        p = prow.get(r["kernel"])
        raw, jit = r["raw_us"], r["jit_us"]
        label = f"{r['runtime_params']} runtime params ({r['kernel']}, {r['args']} args)"
        if p:
            pcol = f"{p['us_per_launch']:.3f} | {p['us_per_launch'] / raw:.2f}"
            if r.get("hash") and p.get("hash"):
                same.append(f"{r['kernel']}: {'same' if r['hash'] == p['hash'] else 'DIFFERENT'} Triton hash")
        else:
            pcol = "n/a | n/a"
        lines.append(f"| {label} | {raw:.3f} | {jit:.3f} | {jit / raw:.3f} | {pcol} |")
    lines.append("")
    if "error" in py:
        lines.append(f"Triton Python launch not measured: {py['error']}.")
    else:
        speed = ", ".join(f"{r['kernel']} {prow[r['kernel']]['us_per_launch'] / r['jit_us']:.1f}x"
                          for r in cpp["rows"] if r["kernel"] in prow)
        lines.append(f"libtriton_jit vs Triton's Python launch: {speed} less host time per launch.")
        if same:
            lines.append("Compiled kernels, libtriton_jit vs Triton Python: " + "; ".join(same) + ".")
text = "\n".join(lines) + "\n"
with open(out, "w") as f:
    f.write(text)
print(text)
PYEOF
}

echo "== $MD"
if ! merge; then
  bench_merge_failed "libtriton_jit launch overhead" "$MD" "$CPP_JSON" "$PY_JSON"
fi
exit $status
