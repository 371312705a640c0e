# shellcheck shell=bash disable=SC2034  # (the variables are for the scripts that source this file)
# The prologue and the two measurement steps of the GPU benchmark scripts (bench/run-gpu-bench.sh,
# bench/run-decorated-bench.sh, bench/torch/run-torch-bench.sh). Sourced, not run.
#
# Each script measures its kernels twice, with the C++ benchmark (raw cuLaunchKernel against
# libtriton_jit, one JSON file) and with Triton's own Python launch (another JSON file), then
# merges the two into OUT_DIR's markdown table.

# ROOT: the repository (bench/..).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# bench_start "$@": prints the calling script's help (its first comment block) and exits 2 unless
# it was given BUILD_DIR OUT_DIR; else sets BUILD and OUT (absolute, OUT created), PY
# (PYTHON, else python3 when installed, else empty), LAUNCHES and BATCH (BENCH_LAUNCHES,
# BENCH_BATCH), NAME (the script's name, for messages), status=0, and unbuffers Python's output.
bench_start() {
  if [[ $# -ne 2 || "$1" == -h || "$1" == --help ]]; then
    sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"
    exit 2
  fi
  NAME=$(basename "$0" .sh)
  BUILD=$(cd "$1" && pwd) || exit 2
  mkdir -p "$2" || exit 2
  OUT=$(cd "$2" && pwd)
  PY=${PYTHON:-$(command -v python3 || true)}
  LAUNCHES=${BENCH_LAUNCHES:-20000}
  BATCH=${BENCH_BATCH:-1000}
  export PYTHONUNBUFFERED=1
  status=0
}

# bench_cpp EXE JSON: the C++ half, BUILD_DIR/bench/EXE, its results into JSON (its own markdown
# goes to stdout only: OUT_DIR gets the merged tables). A failure or a missing binary sets status=1;
# a missing binary also writes an error JSON for the merge to report.
bench_cpp() {
  local exe="$BUILD/bench/$1" json=$2
  echo "== $1: raw cuLaunchKernel vs libtriton_jit ($LAUNCHES launches, batches of $BATCH)"
  if [[ -x "$exe" ]]; then
    if ! "$exe" --launches "$LAUNCHES" --batch "$BATCH" --json "$json"; then
      echo "$NAME: $1 failed" >&2
      status=1
    fi
  else
    echo "$NAME: $exe not found (configure with -DTRITON_JIT_BUILD_BENCHMARKS=ON)" >&2
    echo "{\"error\": \"$1 was not built\"}" >"$json"
    status=1
  fi
}

# bench_python SCRIPT JSON: Triton's Python launch of the same kernels, bench/SCRIPT, into JSON.
bench_python() {
  local script=$1 json=$2
  echo "== $script: Triton's kernel[grid](...) (${PY:-no python3})"
  if [[ -n "$PY" ]]; then
    if ! "$PY" "$ROOT/bench/$script" --launches "$LAUNCHES" --batch "$BATCH" --out "$json"; then
      echo "$NAME: $script failed" >&2
      status=1
    fi
  else
    echo "{\"error\": \"no python3\"}" >"$json"
    status=1
  fi
}

# bench_merge_failed TITLE MD CPP_JSON PY_JSON: the note MD holds when the merge failed.
bench_merge_failed() {
  echo "$NAME: could not merge the results" >&2
  printf '# %s\n\nThe results could not be merged; see %s and %s.\n' "$1" "$(basename "$3")" "$(basename "$4")" >"$2"
  status=1
}
