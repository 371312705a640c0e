#!/usr/bin/env bash
# Runs the CPU tests against every supported Triton release: each version in a small virtualenv
# of its own (Triton only, no torch), made from the base python of the build's python (the
# library embeds that python's libpython) and kept between runs. The one built library serves
# every version: it takes its interpreter from TRITON_JIT_PYTHON. CI's second step (.ci/run),
# after scripts/test.sh.
#
#   scripts/test-triton-versions.sh              set up and build as scripts/test.sh does (a
#                                                no-op after it), then test the build folder
#   scripts/test-triton-versions.sh BUILD_DIR    test an already-built folder as it is
#
# First run: six virtualenvs of about 0.75 GB each (4.5 GB in all),
# then the tests (about 11 minutes for six on a 2-core machine while the CPU tests ran a process per
# case; a process per suite now: 2.5 times less for the CPU tests, see docs/guide/building.md,
# "Where the test time goes"); later runs re-use the virtualenvs.
#
# Per version, three ctest runs with TRITON_JIT_PYTHON set to that virtualenv's python and the
# test caches (TRITON_CACHE_DIR, TRITON_JIT_INDEX_DIR, the CLI work folder) moved below
# BUILD_DIR/triton-versions/VERSION (TRITON_JIT_TEST_CACHE_ROOT), and one pytest run:
#   parity    the C++ specialization against that version's own binder (cpu.*Parity*)
#   compile   every other CPU test: compiles of several kernels for sm_90 and sm_80 checked
#             against the cubins, the launcher on a fake driver, signatures, errors, the kernel
#             index and packs, prepare (-L cpu, without parity, the CLI and cpu.env.*, which
#             use the build folder's own caches, and without the labels faults and scripts:
#             the index's write protocol under injected failures and the set-up scripts do not
#             depend on the Triton version, and took about 80 s of each version's 200 s; the
#             pinned version runs them in scripts/test.sh)
#   cli       the triton-jit command-line tests (-L cli)
#   python    triton_jit.install()'s tests (tests/python/test_install.py, test_install_fast.py)
#             with that virtualenv's python: JITFunction.run, __getitem__ and ConstexprFunction's
#             __call__ replaced and restored, the fallbacks, the installed key against that
#             version's binder, the C++ run launching on the fake HIP runtime. These are the
#             versions install() takes (triton_jit_bridge.versions.INSTALL_TESTED_VERSIONS). The
#             package is the build's; pytest, numpy and torch come from the build's python, added
#             after the virtualenv's own packages (a sitecustomize.py below the version's folder),
#             so that its Triton is the one imported. "none" where the build has no package.
# then prints one table line per version. Exit status: 0 when every run passed, 1 otherwise.
#
# Knobs:
#   TRITON_JIT_VERSIONS  space-separated Triton versions (default: the supported list below);
#                        "none" skips the whole run
#   TRITON_JIT_VERSIONS_OTHERS  1: leave out the version of the build python's own Triton
#                        (.ci/run sets it: scripts/test.sh has just tested that one, the whole
#                        suite); default 0: every listed version
#   TRITON_JIT_VENVS     where the virtualenvs live (default ~/.cache/triton_jit/venvs), one
#                        folder triton-X.Y.Z each, made when missing and re-used otherwise
#   CTEST_JOBS, CTEST_TIMEOUT, JOBS   as for scripts/test.sh
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The newest patch release of each supported minor version.
TJ_TRITON_VERSIONS_SUPPORTED="3.4.0 3.5.1 3.6.0 3.7.1 3.8.0 3.9.0"

case "${1:-}" in
  -h | --help)
    sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
    exit 0
    ;;
esac
if [ $# -gt 1 ]; then tj_die "usage: scripts/test-triton-versions.sh [BUILD_DIR]"; fi
versions="${TRITON_JIT_VERSIONS:-$TJ_TRITON_VERSIONS_SUPPORTED}"
if [ "$versions" = none ]; then
  tj_log "TRITON_JIT_VERSIONS=none: not testing other Triton versions"
  exit 0
fi
if [ $# = 1 ]; then
  build_dir="$1"
else
  # Called alone: the same set-up and build as scripts/test.sh (only a check when it ran first).
  tj_setup
  tj_build triton_jit_suite
  tj_unlock
  build_dir="$BUILD_DIR"
fi
case "$build_dir" in /*) ;; *) build_dir="$PWD/$build_dir" ;; esac
venvs="${TRITON_JIT_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/triton_jit/venvs}"
jobs="${CTEST_JOBS:-$JOBS}"
timeout="${CTEST_TIMEOUT:-1200}"

[ -f "$build_dir/CTestTestfile.cmake" ] || tj_die "$build_dir is not a configured build folder with tests (build it first: scripts/setup.sh)"
build_python="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
[ -x "$build_python" ] || tj_die "the python $build_dir was configured with ($build_python) does not run"
# The interpreter the build's python was made from: a virtualenv of it shares the embedded libpython.
base_python="$("$build_python" - <<'EOF'
import os, sys
exe = getattr(sys, "_base_executable", "")
if not exe or not os.path.exists(exe):
    exe = os.path.join(sys.base_prefix, "bin", "python%d.%d" % sys.version_info[:2])
print(exe)
EOF
)"
python_id() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2], sys.base_prefix)'; }
build_python_id="$(python_id "$build_python")"
# TRITON_JIT_VERSIONS_OTHERS=1 (.ci/run): scripts/test.sh has just run the whole suite with the
# build's own python, so the version of its Triton is left out here.
if [ "${TRITON_JIT_VERSIONS_OTHERS:-0}" = 1 ]; then
  tested="$("$build_python" -c 'import triton; print(triton.__version__)' 2>/dev/null || true)"
  others=""
  for version in $versions; do
    if [ "$version" = "$tested" ]; then
      tj_log "Triton $version: left out (TRITON_JIT_VERSIONS_OTHERS=1: the build's python has it, and scripts/test.sh ran the suite with it)"
    else
      others="${others:+$others }$version"
    fi
  done
  versions="$others"
  if [ -z "$versions" ]; then
    tj_log "no other Triton version to test"
    exit 0
  fi
fi

# tj_triton_venv VERSION: the python of a virtualenv holding Triton VERSION (and the replayed libraries) (made when missing or
# broken). Prints it on stdout; progress goes to stderr.
sqlalchemy_pin=$(grep -i '^sqlalchemy==' "$REPO_ROOT/requirements.txt")
replay_stamp="$(grep -v '^#' "$REPO_ROOT/requirements-replay.txt" | tr '\n' ' ')$sqlalchemy_pin"
tj_triton_venv() {
  local version=$1 venv="$venvs/triton-$1"
  mkdir -p "$venvs"
  (
    if command -v flock >/dev/null 2>&1; then
      exec 8>"$venv.lock"
      flock 8
    fi
    stamp="$venv/.triton-jit-ready"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$replay_stamp" ] && [ -x "$venv/bin/python" ] &&
      [ "$(python_id "$venv/bin/python" 2>/dev/null)" = "$build_python_id" ] &&
      "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('triton') != '$version')" 2>/dev/null; then
      exit 0
    fi
    tj_log "creating $venv (python $base_python, triton==$version)" >&2
    rm -rf "$venv"
    "$base_python" -m venv "$venv" >&2 || { tj_error "$base_python -m venv $venv failed"; exit 1; }
    tj_pip_install "$venv" "triton==$version" ||
      { tj_error "installing triton==$version into $venv failed"; exit 1; }
    "$venv/bin/python" -c 'import triton' >&2 || { tj_error "$venv cannot import triton"; exit 1; }
    # FlagGems' wrappers, against which the LibEntry and LibTuner tests compare the runtime under
    # every Triton (without its dependencies: requirements-replay.txt), and SQLAlchemy for its models.
    tj_pip_install "$venv" --no-deps -r "$REPO_ROOT/requirements-replay.txt" &&
      tj_pip_install "$venv" "$sqlalchemy_pin" ||
      { tj_error "installing requirements-replay.txt or $sqlalchemy_pin into $venv failed"; exit 1; }
    printf '%s\n' "$replay_stamp" >"$stamp"
  ) || return 1
  printf '%s\n' "$venv/bin/python"
}

# run_group NAME LOG ctest-args...: one ctest run; prints "pass (N)" or "FAIL (F of N)"; "none" for
# the CLI group of a build without the CLI (it needs nlohmann-json), "FAIL (no tests)" otherwise.
run_group() {
  local name=$1 log=$2 listing
  shift 2
  listing="$(ctest --test-dir "$build_dir" -N "$@" 2>&1 || true)"
  if ! grep -q '^ *Test *#' <<<"$listing"; then
    if [ "$name" = cli ] && [ ! -x "$build_dir/tools/triton-jit" ]; then
      printf 'none'
    else
      printf 'FAIL (no tests)'
    fi
    return 0
  fi
  if ctest --test-dir "$build_dir" --output-on-failure --no-tests=error --parallel "$jobs" --timeout "$timeout" \
    "$@" >"$log" 2>&1; then
    printf 'pass (%s)' "$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$log")"
  else
    local summary
    summary="$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1 of \2/p' "$log")"
    printf 'FAIL (%s)' "${summary:-see log}"
    {
      echo "---- $name failed; $log ends with:"
      grep -E '^\s+[0-9]+ - |Failure|error' "$log" | head -n 40 || true
    } >&2
  fi
}

# python_group PYTHON LOG: triton_jit.install()'s tests under PYTHON (the version's virtualenv),
# with the build's package; prints as run_group does.
build_site="$("$build_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
python_group() {
  local python=$1 log=$2 site="$work/python-site"
  if [ ! -d "$build_dir/python/triton_jit" ]; then
    printf 'none'
    return 0
  fi
  mkdir -p "$site"
  # After the virtualenv's own site-packages: its Triton first, the build's pytest, numpy, torch next.
  printf 'import site\nsite.addsitedir(%s)\n' "'$build_site'" >"$site/sitecustomize.py"
  # The fake HIP runtime test_install_fast.py launches on (test_rocm.py says so where it is not built).
  if (cd "$REPO_ROOT" && env PYTHONPATH="$site:$build_dir/python" PYTHONDONTWRITEBYTECODE=1 TRITON_DEFAULT_FP_FUSION=1 \
    TRITON_JIT_TEST_FAKE_HIP="$build_dir/tests/cpu/libfake_amdhip64.so" timeout "$timeout" "$python" -m pytest -q -rs -p no:cacheprovider \
    tests/python/test_install.py tests/python/test_install_fast.py) >"$log" 2>&1; then
    printf 'pass (%s)' "$(grep -Eo '[0-9]+ passed' "$log" | tail -1 | cut -d' ' -f1)"
  else
    printf 'FAIL (%s)' "$(grep -Eo '[0-9]+ failed' "$log" | tail -1 | cut -d' ' -f1)"
    {
      echo "---- python failed; $log ends with:"
      tail -n 40 "$log"
    } >&2
  fi
}

tj_log "Triton versions: $versions (build $build_dir, virtualenvs in $venvs)"
rows=()
failed=0
for version in $versions; do
  start=$SECONDS
  work="$build_dir/triton-versions/$version"
  # Triton's own caches are kept between runs, as the build folder's are; the rest starts afresh.
  mkdir -p "$work"
  find "$work" -mindepth 1 -maxdepth 1 ! -name 'test-triton-cache' ! -name 'triton-cache' -exec rm -rf {} +
  if ! python="$(tj_triton_venv "$version")"; then
    rows+=("$(printf '%-8s | %-12s | %-12s | %-12s | %-12s | %7s | %s' "$version" "-" "-" "-" "-" "-" "FAILED")")
    failed=1
    continue
  fi
  venv_seconds=$((SECONDS - start))
  venv_note="ready"
  if [ "$venv_seconds" -gt 2 ]; then venv_note="made in $venv_seconds s"; fi
  tj_log "Triton $version: $python"
  export TRITON_JIT_PYTHON="$python" TRITON_JIT_TEST_CACHE_ROOT="$work"
  export TRITON_CACHE_DIR="$work/triton-cache" TRITON_JIT_INDEX_DIR="$work/jit-cache"  # anything else
  tests_start=$SECONDS
  parity="$(run_group parity "$work/parity.log" -L cpu -LE '^cli$' -R 'Parity|ReferenceMakePointer')"
  compile="$(run_group compile "$work/compile.log" -L cpu -LE '^(cli|faults|scripts)$' \
    -E 'Parity|ReferenceMakePointer|^cpu\.env\.')"
  cli="$(run_group cli "$work/cli.log" -L cli)"
  python_tests="$(python_group "$python" "$work/python.log")"
  unset TRITON_JIT_PYTHON TRITON_JIT_TEST_CACHE_ROOT TRITON_CACHE_DIR TRITON_JIT_INDEX_DIR
  case "$parity$compile$cli$python_tests" in *FAIL*) failed=1 ;; esac
  rows+=("$(printf '%-8s | %-12s | %-12s | %-12s | %-12s | %7d | %s' "$version" "$parity" "$compile" "$cli" "$python_tests" \
    $((SECONDS - tests_start)) "$venv_note")")
  tj_log "Triton $version: parity $parity, compile $compile, cli $cli, python $python_tests (virtualenv $venv_seconds s, tests $((SECONDS - tests_start)) s)"
done

printf '\n%-8s | %-12s | %-12s | %-12s | %-12s | %7s | %s\n' version parity compile cli python seconds virtualenv
printf '%s\n' "---------+--------------+--------------+--------------+--------------+---------+------------"
printf '%s\n' "${rows[@]}"
if [ "$failed" = 0 ]; then
  tj_log "every Triton version passed"
else
  tj_log "some Triton versions FAILED (logs: $build_dir/triton-versions/VERSION/*.log)"
fi
exit "$failed"
