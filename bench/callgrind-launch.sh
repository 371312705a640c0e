#!/usr/bin/env bash
# Instructions per cached launch, counted by callgrind.
#
#   bench/callgrind-launch.sh BUILD_DIR [N]
#
# Runs BUILD_DIR/bench/bench_launch_callgrind under
#   valgrind --tool=callgrind --toggle-collect=tjb_region_* --dump-after=tjb_region_<each>
# so that only the measured regions count: N cached launches (default 20000) of add_kernel
# (5 args, 4 runtime params) and of many_args_kernel (15 args, 14 runtime params) through
# fn(config, args...), and N raw cuLaunchKernel calls with prepacked parameters, all on the
# benchmark's fake driver (no GPU). Python init, kernel lookup and the Triton compile happen
# before the regions (and run uninstrumented when callgrind.h was available at build time).
# Prints instructions per launch for each region, the runtime's own share (launch - raw), any
# heap allocation seen inside the launch regions and the costliest functions of add_kernel's.
#
# CALLGRIND_KEEP=DIR keeps the callgrind output files in DIR (else a temporary folder).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BUILD=$(cd "$1" && pwd)
N=${2:-20000}
EXE="$BUILD/bench/bench_launch_callgrind"
if [[ ! -x "$EXE" ]]; then
  echo "callgrind-launch: $EXE not found; configure with -DTRITON_JIT_BUILD_BENCHMARKS=ON and build target bench_launch_callgrind" >&2
  exit 1
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "callgrind-launch: valgrind is not installed" >&2
  exit 1
fi

if [[ -n "${CALLGRIND_KEEP:-}" ]]; then
  WORK=$(mkdir -p "$CALLGRIND_KEEP" && cd "$CALLGRIND_KEEP" && pwd)
  rm -f "$WORK"/callgrind.out*
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

# Compile natively first (fills Triton's cache), so the run under valgrind only reads it.
"$EXE" 100 >"$WORK/native.log" 2>&1 || { cat "$WORK/native.log" >&2; exit 1; }

REGIONS=(tjb_region_launch_add tjb_region_launch_many tjb_region_raw_add tjb_region_raw_many)
ARGS=(--tool=callgrind --collect-atstart=no "--toggle-collect=tjb_region_*"
      "--callgrind-out-file=$WORK/callgrind.out")
for r in "${REGIONS[@]}"; do ARGS+=("--dump-after=$r"); done
if "$EXE" --client-requests >/dev/null 2>&1; then
  ARGS+=(--instr-atstart=no)  # the program starts instrumenting right before the regions
fi

echo "valgrind callgrind: $N launches per region (Python import under valgrind takes a while)"
if ! valgrind "${ARGS[@]}" "$EXE" "$N" >"$WORK/valgrind.log" 2>&1; then
  cat "$WORK/valgrind.log" >&2
  exit 1
fi

# Each --dump-after writes one file whose "totals:" are that region's instructions.
declare -A IR
for f in "$WORK"/callgrind.out.*; do
  region=$(sed -n 's/^desc: Trigger: --dump-after=\(.*\)$/\1/p' "$f")
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f")
  if [[ -n "$region" && -n "$total" ]]; then IR[$region]=$total; fi
done
for r in "${REGIONS[@]}"; do
  if [[ -z "${IR[$r]:-}" ]]; then
    echo "callgrind-launch: no dump for $r (see $WORK/valgrind.log)" >&2
    cat "$WORK/valgrind.log" >&2
    exit 1
  fi
done
per() { awk -v t="$1" -v n="$N" 'BEGIN { printf "%.1f", t / n }'; }

echo
echo "| region | instructions (Ir) | Ir per launch |"
echo "|---|---:|---:|"
echo "| fn(config, args...) add_kernel: 5 args, 4 runtime params | ${IR[tjb_region_launch_add]} | $(per "${IR[tjb_region_launch_add]}") |"
echo "| fn(config, args...) many_args_kernel: 15 args, 14 runtime params | ${IR[tjb_region_launch_many]} | $(per "${IR[tjb_region_launch_many]}") |"
echo "| raw cuLaunchKernel, 4 params prepacked | ${IR[tjb_region_raw_add]} | $(per "${IR[tjb_region_raw_add]}") |"
echo "| raw cuLaunchKernel, 14 params prepacked | ${IR[tjb_region_raw_many]} | $(per "${IR[tjb_region_raw_many]}") |"
echo
echo "libtriton_jit's own instructions per launch (launch - raw): add_kernel" \
  "$(per $(( IR[tjb_region_launch_add] - IR[tjb_region_raw_add] ))), many_args_kernel" \
  "$(per $(( IR[tjb_region_launch_many] - IR[tjb_region_raw_many] )))"

# Heap allocation inside the launch regions: any allocator function that appears in their dumps.
allocs=""
for f in "$WORK"/callgrind.out.*; do
  grep -q '^desc: Trigger: --dump-after=tjb_region_launch' "$f" || continue
  hits=$(grep -E '^c?fn=' "$f" | grep -E 'malloc|calloc|realloc|_Znw|_Zna|operator new' | sort -u || true)
  if [[ -n "$hits" ]]; then allocs+="$hits"$'\n'; fi
done
if [[ -z "$allocs" ]]; then
  echo "heap allocations in the launch regions: none (no malloc/calloc/realloc/operator new called)"
else
  echo "heap allocations in the launch regions: FOUND"
  printf '%s' "$allocs"
fi

if command -v callgrind_annotate >/dev/null 2>&1; then
  add_file=$(grep -l '^desc: Trigger: --dump-after=tjb_region_launch_add$' "$WORK"/callgrind.out.* | head -1)
  echo
  echo "Costliest functions of the add_kernel region (self instructions over $N launches):"
  callgrind_annotate --threshold=98 "$add_file" 2>/dev/null |
    sed -n '/file:function/,/^$/p' | sed '1,2d' | sed 's/ \[[^]]*\]$//' | head -15
fi
