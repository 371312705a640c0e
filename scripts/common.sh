# shellcheck shell=bash
# Shared set-up steps of scripts/setup.sh, scripts/test.sh, scripts/run-example.sh and
# scripts/gpu-check.sh. Sourced, not run. Every step is idempotent: a second run only re-checks
# and rebuilds.
#
# Environment knobs (all optional):
#   TRITON_JIT_PYTHON    a python that imports triton: used as is, nothing is installed
#   BUILD_DIR            build folder (default: <repo>/build)
#   BUILD_TYPE           CMAKE_BUILD_TYPE (default: Release)
#   CMAKE_ARGS           extra arguments for the configure step, split on spaces
#                        (e.g. CMAKE_ARGS=-DTRITON_JIT_BUILD_TESTS=OFF)
#   JOBS                 parallel build jobs (default: nproc)
#   TRITON_JIT_SKIP_APT  1: never call apt-get, only report missing Debian packages
#   TRITON_JIT_CORE_ONLY 1: without the torch layer: a .venv-core from requirements-core.txt
#                        (no torch: about 0.7 GB instead of 4.7 GB) and -DTRITON_JIT_BUILD_TORCH=OFF
#   TRITON_JIT_INSTALLER uv (default) or pip: what fills the virtualenvs (see tj_pip_install)

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
BUILD_DIR="${BUILD_DIR:-$REPO_ROOT/build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$PWD/$BUILD_DIR" ;; esac
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
VENV_DIR="$REPO_ROOT/.venv"
REQUIREMENTS="$REPO_ROOT/requirements.txt"
TJ_CORE_ONLY=0
case "${TRITON_JIT_CORE_ONLY:-0}" in
  1 | true | on | yes) TJ_CORE_ONLY=1 ;;
  0 | false | off | no | "") ;;
  *) printf 'error: TRITON_JIT_CORE_ONLY must be 1 or 0, not %s\n' "$TRITON_JIT_CORE_ONLY" >&2; exit 1 ;;
esac
if [ "$TJ_CORE_ONLY" = 1 ]; then
  # A virtualenv of its own, so that switching between the two never reinstalls either.
  VENV_DIR="$REPO_ROOT/.venv-core"
  REQUIREMENTS="$REPO_ROOT/requirements-core.txt"
fi
TJ_PYTHON=""  # set by tj_select_python
TJ_CMAKE_ARGS=()  # set by tj_configure_args
TJ_BUILD_ARGS=()  # set by tj_build_args

TJ_START_TIME=$SECONDS

# The installer that fills the virtualenvs. uv installs the 4.7 GB of torch's CUDA build, with
# its downloads, in under a minute on a 2-core machine where pip takes 150 s (pip unpacks and
# compiles in one Python process); uv is itself a wheel from PyPI, pinned here, installed into
# each virtualenv by that virtualenv's pip.
TJ_UV_VERSION=0.13.9
case "${TRITON_JIT_INSTALLER:-uv}" in
  uv | pip) ;;
  *) printf 'error: TRITON_JIT_INSTALLER must be uv or pip, not %s\n' "$TRITON_JIT_INSTALLER" >&2; exit 1 ;;
esac

tj_log() { printf '==> [%4ds] %s\n' "$((SECONDS - TJ_START_TIME))" "$*"; }
tj_warn() { printf 'warning: %s\n' "$*" >&2; }
tj_error() { printf 'error: %s\n' "$*" >&2; }
tj_die() {
  tj_error "$@"
  exit 1
}

# Only one set-up/build at a time per checkout: parallel runs would fight over .venv and the build.
tj_lock() {
  command -v flock >/dev/null 2>&1 || return 0
  local key
  key="$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)"
  exec 9>"${TMPDIR:-/tmp}/triton-jit-setup-$key.lock"
  if ! flock -n 9; then
    tj_log "another set-up or build of $REPO_ROOT is running; waiting for it"
    flock 9
  fi
}
tj_unlock() { exec 9>&-; }

# tj_pip_install VENV ARGS...: `pip install ARGS...` into the virtualenv VENV, through uv (pinned
# above, bootstrapped into VENV by its pip) unless TRITON_JIT_INSTALLER=pip or uv cannot be had.
# uv reads no pip configuration: an index set in PIP_INDEX_URL / PIP_EXTRA_INDEX_URL is passed on.
tj_pip_install() {
  local venv=$1
  shift
  local pip_flags=(--no-input --disable-pip-version-check --quiet)
  if [ -n "${CI:-}" ] || [ ! -t 2 ]; then pip_flags+=(--progress-bar off); fi
  if [ "${TRITON_JIT_INSTALLER:-uv}" = uv ]; then
    if [ ! -x "$venv/bin/uv" ] || [ "$("$venv/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$TJ_UV_VERSION" ]; then
      "$venv/bin/python" -m pip install "${pip_flags[@]}" "uv==$TJ_UV_VERSION" >&2 ||
        tj_warn "pip install uv==$TJ_UV_VERSION into $venv failed: installing with pip instead (slower)"
    fi
    if [ -x "$venv/bin/uv" ]; then
      # --compile-bytecode as pip does: the tests run with PYTHONDONTWRITEBYTECODE=1, and without
      # .pyc files every process would compile torch's modules again (seconds each).
      local uv_flags=(--quiet --compile-bytecode --python "$venv/bin/python")
      if [ -n "${PIP_INDEX_URL:-}" ] && [ -z "${UV_DEFAULT_INDEX:-}${UV_INDEX_URL:-}" ]; then
        uv_flags+=(--default-index "$PIP_INDEX_URL")
      fi
      if [ -n "${PIP_EXTRA_INDEX_URL:-}" ] && [ -z "${UV_INDEX:-}${UV_EXTRA_INDEX_URL:-}" ]; then
        uv_flags+=(--index "$PIP_EXTRA_INDEX_URL")
      fi
      "$venv/bin/uv" pip install "${uv_flags[@]}" "$@" >&2
      return
    fi
  fi
  "$venv/bin/python" -m pip install "${pip_flags[@]}" "$@" >&2
}

tj_imports_triton() { "$1" -c 'import triton' >/dev/null 2>&1; }

tj_requirements_stamp() {
  # What the venv was built from: the requirements and the python it was created with.
  {
    cat "$REQUIREMENTS"
    if [ "$TJ_CORE_ONLY" != 1 ]; then cat "$REPO_ROOT/requirements-replay.txt"; fi
    "$VENV_DIR/bin/python" -c 'import sys; print(sys.version); print(sys.base_prefix)'
  } | sha256sum | cut -d' ' -f1
}

tj_ensure_venv() {
  local stamp_file="$VENV_DIR/.requirements.sha256"
  if [ -x "$VENV_DIR/bin/python" ] && ! "$VENV_DIR/bin/python" -c 'import sys' >/dev/null 2>&1; then
    tj_warn "$VENV_DIR/bin/python does not run (its base python moved?): recreating the virtualenv"
    rm -rf "$VENV_DIR"
  fi
  if [ ! -x "$VENV_DIR/bin/python" ]; then
    command -v python3 >/dev/null 2>&1 || tj_die "no python3 on PATH: install Python 3.10+ (with its shared library) or set TRITON_JIT_PYTHON"
    tj_log "creating virtualenv $VENV_DIR from $(python3 -c 'import sys; print(sys.executable, sys.version.split()[0])')"
    python3 -m venv "$VENV_DIR" ||
      tj_die "python3 -m venv failed (on Debian's own python: apt-get install python3-venv)"
  fi
  local want
  want="$(tj_requirements_stamp)"
  if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$want" ]; then
    tj_log "virtualenv up to date with $(basename "$REQUIREMENTS"): skipping pip"
    return 0
  fi
  local what="triton is a large download"
  if [ "$TJ_CORE_ONLY" != 1 ]; then what="triton and torch (CUDA build) are large downloads, 4.7 GB in all; TRITON_JIT_CORE_ONLY=1 skips torch"; fi
  tj_log "installing $(basename "$REQUIREMENTS") into $VENV_DIR with ${TRITON_JIT_INSTALLER:-uv} ($what)"
  tj_pip_install "$VENV_DIR" -r "$REQUIREMENTS" ||
    tj_die "installing -r $(basename "$REQUIREMENTS") into $VENV_DIR failed (TRITON_JIT_INSTALLER=pip tries pip instead of uv)"
  if [ "$TJ_CORE_ONLY" != 1 ]; then
    # Without their dependencies: see requirements-replay.txt.
    tj_pip_install "$VENV_DIR" --no-deps -r "$REPO_ROOT/requirements-replay.txt" ||
      tj_die "installing --no-deps -r requirements-replay.txt into $VENV_DIR failed"
  fi
  "$VENV_DIR/bin/python" -c 'import triton, pybind11' ||
    tj_die "the virtualenv still cannot import triton and pybind11"
  printf '%s\n' "$want" >"$stamp_file"
}

# Sets TJ_PYTHON: TRITON_JIT_PYTHON, else the python3 on PATH when it imports triton (used as is),
# else the repository's .venv (created and filled from requirements.txt when needed).
tj_select_python() {
  if [ -n "${TRITON_JIT_PYTHON:-}" ]; then
    local exe
    exe="$(command -v "$TRITON_JIT_PYTHON" 2>/dev/null)" || tj_die "TRITON_JIT_PYTHON=$TRITON_JIT_PYTHON is not an executable"
    tj_imports_triton "$exe" ||
      tj_die "TRITON_JIT_PYTHON=$TRITON_JIT_PYTHON cannot import triton: install triton there, or unset it to use a .venv"
    TJ_PYTHON="$exe"
    tj_log "python: $TJ_PYTHON (TRITON_JIT_PYTHON; it imports triton: installing nothing)"
  elif command -v python3 >/dev/null 2>&1 && tj_imports_triton python3; then
    # sys.executable keeps a virtualenv's own path (its site-packages), unlike a resolved link.
    TJ_PYTHON="$(python3 -c 'import sys; print(sys.executable)')"
    tj_log "python: $TJ_PYTHON (python3 on PATH imports triton: installing nothing)"
  else
    tj_ensure_venv
    TJ_PYTHON="$VENV_DIR/bin/python"
    tj_log "python: $TJ_PYTHON"
  fi
  "$TJ_PYTHON" - <<'EOF' || tj_die "$TJ_PYTHON is older than Python 3.9 (the embedded interpreter needs 3.9+)"
import sys
import triton
try:
    import pybind11
    pb = pybind11.__version__
except ImportError:
    pb = "not installed (Debian's pybind11-dev is used)"
print(f"    Python {sys.version.split()[0]}, triton {triton.__version__}, pybind11 {pb}")
sys.exit(0 if sys.version_info >= (3, 9) else 1)
EOF
}

tj_deb_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# Debian packages the build needs, installed only when missing (and only as root or with sudo).
tj_ensure_system_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    tj_log "not a Debian system: make sure GoogleTest, Google Benchmark, nlohmann-json, cmake and g++ are installed"
    return 0
  fi
  # libsqlite3-dev: FlagGems' tuning database for LibTuner kernels (optional to the build).
  local wanted=(libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libsqlite3-dev)
  # ccache: the tests that build the repository again (python.pip_install, consumers.subdirectory,
  # consumers.torch_operator) take the build's own objects through it; without it they compile
  # the library three more times, 9 of the test command's 15 minutes on a fresh 2-core machine.
  [ "${TRITON_JIT_CCACHE:-1}" != 0 ] && wanted+=(ccache)
  command -v cmake >/dev/null 2>&1 || wanted+=(cmake)
  command -v g++ >/dev/null 2>&1 || wanted+=(g++)
  command -v ninja >/dev/null 2>&1 || command -v make >/dev/null 2>&1 || wanted+=(make)
  # pybind11 comes from pip; without it in the chosen python, Debian's package provides the CMake config.
  if [ -n "$TJ_PYTHON" ] && ! "$TJ_PYTHON" -c 'import pybind11' >/dev/null 2>&1; then wanted+=(pybind11-dev); fi
  if [ -n "$TJ_PYTHON" ] && ! "$TJ_PYTHON" -c \
      'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    case "$TJ_PYTHON" in
      /usr/bin/*) wanted+=("$(basename "$("$TJ_PYTHON" -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')")-dev") ;;
      *) tj_warn "$TJ_PYTHON has no Python.h: the embedded interpreter needs the python's headers and shared library" ;;
    esac
  fi
  local missing=() p
  for p in "${wanted[@]}"; do
    if [ "$p" = cmake ] || [ "$p" = g++ ] || [ "$p" = make ] || ! tj_deb_installed "$p"; then missing+=("$p"); fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    tj_log "Debian packages present: ${wanted[*]}"
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else sudo=(none); fi
  fi
  if [ "${TRITON_JIT_SKIP_APT:-0}" = 1 ] || ! command -v apt-get >/dev/null 2>&1 || [ "${sudo[*]}" = none ]; then
    tj_warn "missing Debian packages: ${missing[*]} (not root, no apt-get or TRITON_JIT_SKIP_APT=1): install them yourself if the build needs them"
    return 0
  fi
  tj_log "installing Debian packages: ${missing[*]}"
  if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
         "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
    tj_warn "apt-get could not install ${missing[*]} (offline?): continuing; the build says what is missing"
  fi
}

# cuda.h only (the driver is loaded at run time): nvcc on PATH, CUDAToolkit_ROOT or CUDA_PATH find
# it; otherwise point CMake at the usual install folders, or, without a toolkit, leave it to
# CMakeLists.txt (Triton's wheel ships cuda.h).
tj_cuda_cmake_args() {
  TJ_CUDA_ARGS=()
  if [ -n "${CUDAToolkit_ROOT:-}" ] || [ -n "${CUDA_PATH:-}" ] || command -v nvcc >/dev/null 2>&1; then return 0; fi
  local d
  for d in /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$d/include/cuda.h" ]; then
      TJ_CUDA_ARGS=("-DCUDAToolkit_ROOT=$d")
      return 0
    fi
  done
  [ -f /usr/include/cuda.h ] && return 0
  # CMakeLists.txt then takes the cuda.h of Triton's wheel, or says what to install.
  tj_log "no CUDA toolkit found: the build takes cuda.h from Triton's wheel"
  return 0
}

# tj_configure_args DIR: sets TJ_CMAKE_ARGS, the arguments that configure the build folder DIR for
# TJ_PYTHON (when set), BUILD_TYPE, CUDA's headers and CMAKE_ARGS. A folder configured for another
# python is reset first. Runs nothing else: the caller runs cmake (with a time limit, a log...).
tj_configure_args() {
  local dir=$1
  local cache="$dir/CMakeCache.txt"
  if [ -f "$cache" ] && [ -n "$TJ_PYTHON" ]; then
    local cached_python
    cached_python="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$cache")"
    if [ -n "$cached_python" ] && [ "$cached_python" != "$TJ_PYTHON" ]; then
      tj_log "$dir was configured with $cached_python: reconfiguring from scratch for $TJ_PYTHON"
      rm -rf "$cache" "$dir/CMakeFiles"
    fi
  fi
  TJ_CMAKE_ARGS=(-S "$REPO_ROOT" -B "$dir")
  if [ -n "$TJ_PYTHON" ]; then TJ_CMAKE_ARGS+=("-DPython3_EXECUTABLE=$TJ_PYTHON"); fi
  TJ_CMAKE_ARGS+=("-DCMAKE_BUILD_TYPE=$BUILD_TYPE")
  # ON explicitly otherwise: a folder configured core-only earlier gets the torch layer back.
  if [ "$TJ_CORE_ONLY" = 1 ]; then TJ_CMAKE_ARGS+=(-DTRITON_JIT_BUILD_TORCH=OFF); else TJ_CMAKE_ARGS+=(-DTRITON_JIT_BUILD_TORCH=ON); fi
  # A configured folder keeps its generator; a new one gets Ninja when available.
  if [ ! -f "$cache" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then
    TJ_CMAKE_ARGS+=(-G Ninja)
  fi
  tj_cuda_cmake_args
  TJ_CMAKE_ARGS+=("${TJ_CUDA_ARGS[@]}")
  # ccache, where installed, compiles (TRITON_JIT_CCACHE=0: never): the scripts' builds (build/,
  # build-asan/, build-fuzz/) then reuse objects between runs and between clones. CCACHE_BASEDIR
  # (the repository) makes the paths it hashes relative, so that another clone hits too. A
  # launcher given in CMAKE_ARGS wins.
  if [ "${TRITON_JIT_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1 &&
    [[ "${CMAKE_ARGS:-}" != *COMPILER_LAUNCHER* ]]; then
    TJ_CMAKE_ARGS+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$REPO_ROOT}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  fi
  local extra=()
  if [ -n "${CMAKE_ARGS:-}" ]; then read -r -a extra <<<"$CMAKE_ARGS"; fi
  TJ_CMAKE_ARGS+=("${extra[@]}")
}

# tj_build_args DIR [target...]: sets TJ_BUILD_ARGS, the `cmake` arguments that build everything in
# the build folder DIR, or the given targets, with JOBS parallel jobs.
tj_build_args() {
  local dir=$1 t
  shift
  TJ_BUILD_ARGS=(--build "$dir" --parallel "$JOBS")
  for t in "$@"; do TJ_BUILD_ARGS+=(--target "$t"); done
}

tj_configure() {
  tj_configure_args "$BUILD_DIR" || exit 1
  tj_log "cmake ${TJ_CMAKE_ARGS[*]}"
  cmake "${TJ_CMAKE_ARGS[@]}" || tj_die "CMake configure failed (see above)"
}

# tj_build [target...]: builds everything, or the given targets.
# shellcheck disable=SC2120
tj_build() {
  tj_build_args "$BUILD_DIR" "$@"
  tj_log "cmake ${TJ_BUILD_ARGS[*]}"
  cmake "${TJ_BUILD_ARGS[@]}" || tj_die "build failed (see above)"
}

tj_gpu_summary() {
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    tj_log "GPU: $(nvidia-smi -L 2>/dev/null | head -n 1)"
  else
    tj_log "no GPU found: tests that need one report as skipped; kernels compile for ${TRITON_JIT_TARGET:-cuda:90}"
  fi
}

# Python and system packages, then configure. Callers build what they need next.
tj_setup() {
  tj_lock
  tj_log "libtriton_jit set-up in $REPO_ROOT (build folder: $BUILD_DIR)"
  if [ "$TJ_CORE_ONLY" = 1 ]; then
    tj_log "core only (TRITON_JIT_CORE_ONLY=1): no torch layer; python packages from requirements-core.txt"
  fi
  tj_select_python
  tj_ensure_system_packages
  tj_configure
}
