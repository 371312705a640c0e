#!/usr/bin/env bash
# The compile worker pool against compiling one after another in this process
# (bench/compile_pool_bench.cpp). Each run is a fresh process with empty kernel caches (Triton's
# and the index), so every kernel really compiles. The index holds only Triton's installation key,
# as on any machine where the runtime compiled once before (src/bridge/python/triton_jit_bridge/
# triton_key.py: _take_stored_triton_key); the cold 16-thread case also runs without it, as the first process after
# installing Triton. The pool's first prepare() call and the cold 16-thread case also run with
# spawned workers (TRITON_JIT_COMPILE_WORKER_START=spawn: each a fresh Python instead of a fork of
# the fork server), the baseline of the fork server; the cold case also with the fork server
# started on demand (TRITON_JIT_COMPILE_WORKER_START=on-demand: by the pool's first worker instead
# of when the process first reads a kernel through Python). Prints the ratios against the targets of
# docs/BENCHMARKS.md (set for a 16-core machine).
# Usage: bench/run-compile-pool-bench.sh BUILD_DIR [PREPARE_COUNT] [MISS_THREADS]
set -euo pipefail
build=$(cd "${1:?usage: run-compile-pool-bench.sh BUILD_DIR [PREPARE_COUNT] [MISS_THREADS]}" && pwd)
count=${2:-32}
threads=${3:-16}
bench="$build/bench/compile_pool_bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

keys="$tmp/seed/index/v3/installations"  # Triton's installation key, stored by one compile
mkdir -p "$tmp/seed/triton" "$tmp/seed/out"
TRITON_CACHE_DIR="$tmp/seed/triton" TRITON_JIT_INDEX_DIR="$tmp/seed/index" "$build/tools/triton-jit" compile \
  "$(dirname "${BASH_SOURCE[0]}")/kernels/launch_kernels.py:add_kernel" --signature "*fp32,*fp32,*fp32,i32,1024" \
  --target cuda:90 --out "$tmp/seed/out" >/dev/null

run() {  # run NAME ARGS...: the output line of a fresh process with empty kernel caches
  local dir="$tmp/$1"
  shift
  mkdir -p "$dir/triton" "$dir/index"
  [[ $dir == *-unkeyed ]] || { mkdir -p "$dir/index/v3" && cp -r "$keys" "$dir/index/v3/"; }
  TRITON_CACHE_DIR="$dir/triton" TRITON_JIT_INDEX_DIR="$dir/index" "$bench" "$@"
}
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p"; }
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}')" "$@"; }

echo "compile pool on $(nproc) cores, $(date +%F), $(uname -m)"
serial=$(run prepare-serial prepare --jobs 1 --count "$count")
pool=$(run prepare-pool prepare --jobs 0 --count "$count")
spawned_pool=$(TRITON_JIT_COMPILE_WORKER_START=spawn run prepare-pool-spawned prepare --jobs 0 --count "$count")
echo "prepare of $count specializations, then $count others (seconds):"
echo "  serial (jobs=1, in process): $serial"
echo "  pool   (jobs=0):             $pool"
echo "  pool, spawned workers:       $spawned_pool"
first=$(ratio "$(field first <<<"$serial")" "$(field first <<<"$pool")")
second=$(ratio "$(field second <<<"$serial")" "$(field second <<<"$pool")")
echo "  first call:  ${first}x serial (target on 16 cores: >= 6x)"
echo "  second call: ${second}x serial (target on 16 cores: >= 8x)"
echo "  first call with spawned workers (each a fresh Python, no fork server): $(ratio "$(field first <<<"$serial")" "$(field first <<<"$spawned_pool")")x serial"

mkdir -p "$tmp/k1" "$tmp/kc" "$tmp/kw"
one=$(run misses-serial misses --threads 1 --count "$threads" --dir "$tmp/k1")
cold=$(run misses-cold misses --threads "$threads" --count "$threads" --dir "$tmp/kc")
mkdir -p "$tmp/ku" "$tmp/ks" "$tmp/kd"
unkeyed=$(run misses-cold-unkeyed misses --threads "$threads" --count "$threads" --dir "$tmp/ku")
warm=$(run misses-warm misses --threads "$threads" --count "$threads" --dir "$tmp/kw" --warm 1)
on_demand=$(TRITON_JIT_COMPILE_WORKER_START=on-demand run misses-cold-on-demand misses --threads "$threads" \
  --count "$threads" --dir "$tmp/kd")
spawned=$(TRITON_JIT_COMPILE_WORKER_START=spawn run misses-cold-spawned misses --threads "$threads" --count "$threads" \
  --dir "$tmp/ks")
s=$(field seconds <<<"$one")
echo "$threads threads each missing a different kernel (seconds):"
echo "  one after another:                          $one"
echo "  $threads threads at once, workers not started:   $cold"
echo "  $threads threads at once, start_compile_workers: $warm"
echo "  $threads threads at once, workers not started, no installation key stored: $unkeyed"
echo "  $threads threads at once, workers not started, fork server started on demand: $on_demand"
echo "  $threads threads at once, workers not started, each a fresh Python (no fork server): $spawned"
of_serial() { echo "1/$(ratio "$s" "$(field seconds <<<"$1")")"; }
echo "  wall = $(of_serial "$cold") of serial, $(of_serial "$warm") with the workers started, $(of_serial "$unkeyed") with no key stored, $(of_serial "$on_demand") with the fork server on demand, $(of_serial "$spawned") with spawned workers (target on 16 cores: <= 1/6)"

mkdir -p "$tmp/kl"
lone=$(run lone lone --dir "$tmp/kl")
echo "a lone miss (ms): $lone"
