# A time budget shared by scripts that run phases under one limit (scripts/gpu-check.sh,
# bench/run-all.sh): sourced, not run. The sourcing script sets BUDGET_S (the whole budget, in
# seconds) and START_S (bash's $SECONDS when it began).

# Seconds left for a phase, keeping `reserve` seconds for what follows (at least 30).
left() {
  local reserve=${1:-0} n
  n=$(( BUDGET_S - (SECONDS - START_S) - reserve ))
  (( n < 30 )) && n=30
  echo "$n"
}

# status_of RC OK T WHAT: a phase's result from its exit status RC: OK for 0, timed out after T s
# for timeout's 124 and 137, else "failed (WHAT RC)".
status_of() {
  case $1 in
    0) echo "$2" ;;
    124|137) echo "timed out after ${3}s" ;;
    *) echo "failed ($4 $1)" ;;
  esac
}
