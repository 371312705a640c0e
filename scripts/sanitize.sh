#!/usr/bin/env bash
# The CPU tests under sanitizers, each in a build folder of its own.
#
#   scripts/sanitize.sh [asan] [tsan]      (default: both)
#
# asan: AddressSanitizer + UndefinedBehaviorSanitizer (-DTRITON_JIT_SANITIZE="address;undefined",
#       build-asan/), then every test labelled cpu (`ctest -L cpu`: the C++ CPU tests and the CLI's)
#       but the fault-injection ones (label faults: they LD_PRELOAD a shim around libc's write
#       calls, which cannot come before the ASan runtime in the library list) and the deployment
#       test (label deploy: it builds its own uninstrumented probe against the installed library,
#       which then does not start with the ASan runtime). Leaks are checked;
#       a UBSan finding aborts the test.
# tsan: ThreadSanitizer (-DTRITON_JIT_SANITIZE=thread, build-tsan/), then the concurrency tests:
#       the registry and concurrent misses (KernelTable.Concurrent*), concurrent launches and the
#       hit counters (FakeLaunch.Concurrent*), the index under concurrent writers
#       (StoreTest.Concurrent*, whose writer processes are instrumented too), concurrent misses
#       through the compile-worker pool (CompilePoolTest.Concurrent*, .AMissWhile*), and the
#       fork server (CompilePoolForkServer: four threads' first misses in a fresh process, the
#       bridge's load and the server started once; a server started ahead, taken by the pool or
#       ended unused by its timer thread).
# Suppressions, each justified, are in scripts/sanitize/. Python runs uninstrumented inside the
# tests (the embedded interpreter, Triton's compiler); PYTHONMALLOC=malloc puts its objects on
# the instrumented allocator, so an overrun of a Python buffer from our code is seen.
#
# Knobs: those of scripts/setup.sh (TRITON_JIT_PYTHON, JOBS, ...), CTEST_JOBS (default: JOBS),
# SANITIZE_BUILD_ROOT (folder holding build-asan/ and build-tsan/; default: the repository).
# Exit status: 0 when every selected part built and passed.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(asan tsan)
for p in "${parts[@]}"; do
  case "$p" in
    asan | tsan) ;;
    *) tj_die "unknown part '$p': give asan, tsan or nothing (both)" ;;
  esac
done

SUPP="$REPO_ROOT/scripts/sanitize"
ROOT="${SANITIZE_BUILD_ROOT:-$REPO_ROOT}"
CTEST_JOBS="${CTEST_JOBS:-$JOBS}"

# The set-up lock is held only while setting up and building: tests that run the set-up
# scripts themselves (scripts.core_only) would wait on it forever.
tj_lock
tj_select_python
tj_ensure_system_packages
tj_unlock

# configure_and_build DIR SANITIZERS TARGET...: a build folder with TRITON_JIT_SANITIZE, and the
# given CPU test executables only (no torch layer, benchmarks or GPU tests: they would run
# uninstrumented or not at all here).
configure_and_build() {
  local dir=$1 sanitizers=$2
  shift 2
  tj_lock
  tj_configure_args "$dir" || exit 1
  TJ_CMAKE_ARGS+=("-DTRITON_JIT_SANITIZE=$sanitizers" -DTRITON_JIT_BUILD_TORCH=OFF -DTRITON_JIT_BUILD_BENCHMARKS=OFF
                  "${TJ_EXTRA_CMAKE_ARGS[@]}")
  tj_log "cmake ${TJ_CMAKE_ARGS[*]}"
  mkdir -p "$dir"
  cmake "${TJ_CMAKE_ARGS[@]}" >"$dir/configure.log" 2>&1 || {
    cat "$dir/configure.log"
    tj_die "configure of $dir failed"
  }
  tj_build_args "$dir" "$@"
  tj_log "cmake ${TJ_BUILD_ARGS[*]}"
  cmake "${TJ_BUILD_ARGS[@]}" || tj_die "build of $dir failed (see above)"
  tj_unlock
}

TJ_EXTRA_CMAKE_ARGS=()
status=0
for p in "${parts[@]}"; do
  start=$SECONDS
  if [ "$p" = asan ]; then
    dir="$ROOT/build-asan"
    # Configured as a machine without the CUDA toolkit is (an AMD one): cuda.h from Triton's wheel
    # (CMakeLists.txt), so that the CPU suite proves that build too (the examples, which link
    # CUDA's runtime, are left out, and with them the cpu.env.* tests that run one).
    TJ_EXTRA_CMAKE_ARGS=(-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
    configure_and_build "$dir" "address;undefined" triton_jit_cpu_tests
    TJ_EXTRA_CMAKE_ARGS=()
    tj_log "ASan+UBSan: ctest -L cpu in $dir"
    # --repeat until-pass:3: LeakSanitizer's stop-the-world tracer at exit now and then crashes
    # ("Tracer caught signal 11") while a process's threads (torch's) start or end; seen once in
    # 326 tests when each case was a process, twice in one run of 284 once a process runs a whole
    # suite (longer processes, more threads). Each passed when run again. A real finding repeats,
    # so the runs after the first forgive only that.
    # intercept_tls_get_addr=0: LeakSanitizer's scan of the threads' dynamic TLS at exit crashed
    # its tracer on an entry ASan had recorded wrongly from __tls_get_addr ("DTLS 8 at
    # 0x000000000f55-0x001000002057", then "Tracer caught signal 11"): in every run of
    # cpu.LibTunerDatabase's probes for one build of the library, in none for the builds of the two
    # commits it merged, a fault of the sanitizer's bookkeeping that moves with the memory layout
    # (the occasional crash above is the same). Untracked, dynamic TLS blocks are no roots of the
    # leak scan; static TLS still is, and the suite reports no leak either way.
    # use_sigaltstack=0: Triton's LLVM, compiling on a thread of the test, gives that thread a
    # signal stack of its own (malloc'd, larger than ASan's); ASan then tried to unmap it as its
    # own when the thread ended and aborted ("unable to unmap"), on every cold Triton cache. Only
    # ASan's report of a stack overflow needs its signal stack.
    rc=0
    env PYTHONMALLOC=malloc \
      ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:use_sigaltstack=0:intercept_tls_get_addr=0" \
      LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp" \
      ctest --test-dir "$dir" -L cpu -LE "faults|deploy" --output-on-failure --no-tests=error --parallel "$CTEST_JOBS" \
      --timeout 1800 --repeat until-pass:3 || rc=$?
  else
    dir="$ROOT/build-tsan"
    # Only the executables of the tests it runs (their helper processes come as dependencies).
    configure_and_build "$dir" thread cpu_api_test cpu_internal_test
    tj_log "TSan: the concurrency tests in $dir"
    rc=0
    env TSAN_OPTIONS="suppressions=$SUPP/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0" \
      ctest --test-dir "$dir" \
      -R '^cpu\.(KernelTable|FakeLaunch|StoreTest|CompilePoolTest|CompilePoolForkServer)$' \
      --output-on-failure --no-tests=error --parallel "$CTEST_JOBS" --timeout 1800 || rc=$?
  fi
  tj_log "$p: exit status $rc after $((SECONDS - start)) s"
  if [ "$rc" != 0 ]; then status=$rc; fi
done
tj_log "sanitizers finished with exit status $status"
exit "$status"
