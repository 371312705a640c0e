#!/usr/bin/env bash
# Launch overhead before and after a change, in one run on one GPU: builds the launch benchmarks
# (launch_gpu_bench: plain kernels; decorated_launch_bench: @triton.heuristics and @triton.autotune
# kernels) from a baseline source tree and from this tree, then runs them alternately (ROUNDS times
# each) and prints the median host time per launch of the raw cuLaunchKernel loop and of the
# runtime, and their ratio, for each build.
#
#   bench/run-before-after.sh BASELINE_SRC OUT_DIR
#
# BASELINE_SRC: a source tree of the baseline (e.g. `git archive REV | tar -x -C DIR`).
# Environment: PYTHON (python with triton and pybind11; default python3), ROUNDS (5), JOBS,
# BENCHES (default: launch_gpu_bench decorated_launch_bench).
set -euo pipefail
if [[ $# -ne 2 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
PY=${PYTHON:-$(command -v python3)}
ROUNDS=${ROUNDS:-5}
JOBS=${JOBS:-$(nproc)}
read -r -a BENCHES <<<"${BENCHES:-launch_gpu_bench decorated_launch_bench}"
export TRITON_CACHE_DIR="$OUT/triton-cache" TRITON_JIT_INDEX_DIR="$OUT/jit-cache"

build() {  # SRC BUILD_DIR
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$PY" \
    -DTRITON_JIT_BUILD_TORCH=OFF -DTRITON_JIT_BUILD_TESTS=OFF -DTRITON_JIT_BUILD_EXAMPLES=OFF \
    -DTRITON_JIT_BUILD_TOOLS=OFF -DTRITON_JIT_BUILD_BENCHMARKS=ON >"$OUT/configure-$(basename "$2").log"
  cmake --build "$2" -j "$JOBS" --target "${BENCHES[@]}" >"$OUT/build-$(basename "$2").log"
}
build "$BASE" "$OUT/build-before"
build "$ROOT" "$OUT/build-after"

for ((i = 1; i <= ROUNDS; i++)); do
  for which in before after; do
    for bench in "${BENCHES[@]}"; do
      (cd "$OUT/build-$which/bench" && "./$bench" --json "$OUT/$bench-$which-$i.json" >/dev/null)
    done
  done
done

"$PY" - "$OUT" "$ROUNDS" "${BENCHES[@]}" <<'PY'
import json, statistics, sys
out, rounds, benches = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for bench in benches:
    runs = {w: [json.load(open(f"{out}/{bench}-{w}-{i}.json")) for i in range(1, rounds + 1)]
            for w in ("before", "after")}
    print(f"{bench} on {runs['after'][0]['device']}, {rounds} alternating runs each, medians of per-run values")
    print("| kernel | grid | build | raw µs | runtime µs | ratio |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for k in range(len(runs["after"][0]["rows"])):
        for w in ("before", "after"):
            rows = [r["rows"][k] for r in runs[w]]
            raw = statistics.median(r["raw_us"] for r in rows)
            jit = statistics.median(r["jit_us"] for r in rows)
            ratio = statistics.median(r["jit_us"] / r["raw_us"] for r in rows)
            grid = rows[0].get("grid", "")
            print(f"| {rows[0]['kernel']} | {grid} | {w} | {raw:.3f} | {jit:.3f} | {ratio:.3f} |")
    print()
PY
