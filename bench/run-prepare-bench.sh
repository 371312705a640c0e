#!/usr/bin/env bash
# prepare() of 32 matmul specializations: one compile process a core against one after another
# in this process. Each run is a fresh process with empty caches (Triton's and the index), so
# every kernel really compiles. Usage: bench/run-prepare-bench.sh BUILD_DIR [COUNT]
set -euo pipefail
build=$(cd "${1:?usage: run-prepare-bench.sh BUILD_DIR [COUNT]}" && pwd)
count=${2:-32}
cores=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run JOBS: prints the report line of a fresh process
  local dir="$tmp/run-$1"
  mkdir -p "$dir/triton" "$dir/index"
  TRITON_CACHE_DIR="$dir/triton" TRITON_JIT_INDEX_DIR="$dir/index" \
    "$build/bench/prepare_bench" --jobs "$1" --count "$count"
}
seconds() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p'; }

serial=$(run 1)
parallel=$(run "$cores")
s=$(seconds <<<"$serial")
p=$(seconds <<<"$parallel")
echo "prepare of $count specializations on $(nproc) cores ($(date +%F)):"
echo "  serial   (--jobs 1):        $serial"
echo "  parallel (--jobs $cores): $parallel"
python3 -c "print(f'  speedup: {$s / $p:.2f}x')"
