#!/usr/bin/env bash
# Instructions per cached launch of an autotuned kernel, and of a FlagGems LibEntry kernel's hit,
# each against a plain launch of its cubin, counted by callgrind.
#
#   bench/callgrind-decorated.sh BUILD_DIR [N]
#
# Runs BUILD_DIR/bench/bench_decorated_callgrind under valgrind --tool=callgrind, counting only
# its tjb_region_* functions (N launches each, default 20000; see bench/decorated_callgrind.cpp),
# and prints instructions per launch, the autotuner's own share (tuned - plain) and any heap
# allocation seen inside the regions.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BUILD=$(cd "$1" && pwd)
N=${2:-20000}
EXE="$BUILD/bench/bench_decorated_callgrind"
[[ -x "$EXE" ]] || { echo "callgrind-decorated: build target bench_decorated_callgrind first" >&2; exit 1; }
command -v valgrind >/dev/null 2>&1 || { echo "callgrind-decorated: valgrind is not installed" >&2; exit 1; }
WORK=${CALLGRIND_KEEP:-$(mktemp -d)}; mkdir -p "$WORK"; rm -f "$WORK"/callgrind.out*
[[ -n "${CALLGRIND_KEEP:-}" ]] || trap 'rm -rf "$WORK"' EXIT

"$EXE" 100 >"$WORK/native.log" 2>&1 || { cat "$WORK/native.log" >&2; exit 1; }
REGIONS=(tjb_region_tuned tjb_region_tuned_grid_fn tjb_region_plain tjb_region_libentry tjb_region_libentry_grid_fn
  tjb_region_libentry_plain)
ARGS=(--tool=callgrind --collect-atstart=no "--toggle-collect=tjb_region_*" "--callgrind-out-file=$WORK/callgrind.out")
for r in "${REGIONS[@]}"; do ARGS+=("--dump-after=$r"); done
echo "valgrind callgrind: $N launches per region (Python import under valgrind takes a while)"
valgrind "${ARGS[@]}" "$EXE" "$N" >"$WORK/valgrind.log" 2>&1 || { cat "$WORK/valgrind.log" >&2; exit 1; }

declare -A IR
for f in "$WORK"/callgrind.out.*; do
  region=$(sed -n 's/^desc: Trigger: --dump-after=\(.*\)$/\1/p' "$f")
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f")
  [[ -n "$region" && -n "$total" ]] && IR[$region]=$total
done
for r in "${REGIONS[@]}"; do
  [[ -n "${IR[$r]:-}" ]] || { echo "callgrind-decorated: no dump for $r" >&2; cat "$WORK/valgrind.log" >&2; exit 1; }
done
per() { awk -v t="$1" -v n="$N" 'BEGIN { printf "%.1f", t / n }'; }
echo
echo "| region | Ir per launch |"
echo "|---|---:|"
echo "| autotuned scale_kernel, fixed grid | $(per "${IR[tjb_region_tuned]}") |"
echo "| autotuned scale_kernel, grid_fn | $(per "${IR[tjb_region_tuned_grid_fn]}") |"
echo "| plain launch of the same kernel (scale_kernel.fn) | $(per "${IR[tjb_region_plain]}") |"
echo "| FlagGems LibEntry hit of libentry_scale_kernel, fixed grid | $(per "${IR[tjb_region_libentry]}") |"
echo "| FlagGems LibEntry hit, grid_fn | $(per "${IR[tjb_region_libentry_grid_fn]}") |"
echo "| plain launch of the same kernel (libentry_scale_kernel.fn.fn.fn) | $(per "${IR[tjb_region_libentry_plain]}") |"
echo
echo "the autotuner's own instructions per launch (tuned - plain): fixed grid" \
  "$(per $(( IR[tjb_region_tuned] - IR[tjb_region_plain] ))), grid_fn" \
  "$(per $(( IR[tjb_region_tuned_grid_fn] - IR[tjb_region_plain] )))"
echo "LibEntry's own instructions per launch (hit - plain): fixed grid" \
  "$(per $(( IR[tjb_region_libentry] - IR[tjb_region_libentry_plain] ))), grid_fn" \
  "$(per $(( IR[tjb_region_libentry_grid_fn] - IR[tjb_region_libentry_plain] )))"
allocs=""
for f in "$WORK"/callgrind.out.*; do
  hits=$(grep -E '^c?fn=' "$f" | grep -E 'malloc|calloc|realloc|_Znw|_Zna|operator new' | sort -u || true)
  [[ -n "$hits" ]] && allocs+="$hits"$'\n'
done
if [[ -z "$allocs" ]]; then
  echo "heap allocations in the regions: none"
else
  echo "heap allocations in the regions: FOUND"
  printf '%s' "$allocs"
fi
if command -v callgrind_annotate >/dev/null 2>&1; then
  f=$(grep -l '^desc: Trigger: --dump-after=tjb_region_tuned$' "$WORK"/callgrind.out.* | head -1)
  echo
  echo "Costliest functions of the fixed-grid autotuned region (self instructions over $N launches):"
  callgrind_annotate --threshold=98 "$f" 2>/dev/null | sed -n '/file:function/,/^$/p' | sed '1,2d' |
    sed 's/ \[[^]]*\]$//' | head -15
fi
