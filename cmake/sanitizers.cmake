# TRITON_JIT_SANITIZE: a list of sanitizers every target of this build is compiled and linked
# with, e.g. -DTRITON_JIT_SANITIZE="address;undefined" or -DTRITON_JIT_SANITIZE=thread
# (scripts/sanitize.sh builds both, each in a build folder of its own). Empty: none.
#
# The flags apply to the whole build, not per target, on purpose: a sanitizer must see every
# object that shares memory with the instrumented ones (the library, the tests, the fake driver),
# and a folder mixing instrumented and plain objects reports false positives (TSan) or misses
# bugs (ASan).
set(TRITON_JIT_SANITIZE "" CACHE STRING
    "Sanitizers for the whole build: a list of address, undefined, thread, leak (empty: none)")

if(TRITON_JIT_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "TRITON_JIT_SANITIZE needs GCC or Clang (the compiler is ${CMAKE_CXX_COMPILER_ID})")
  endif()
  set(_tj_known address undefined thread leak)
  foreach(_tj_s IN LISTS TRITON_JIT_SANITIZE)
    if(NOT _tj_s IN_LIST _tj_known)
      message(FATAL_ERROR "TRITON_JIT_SANITIZE: unknown sanitizer '${_tj_s}' (known: ${_tj_known}); "
                          "give a list such as -DTRITON_JIT_SANITIZE=\"address;undefined\"")
    endif()
  endforeach()
  if("thread" IN_LIST TRITON_JIT_SANITIZE AND
     ("address" IN_LIST TRITON_JIT_SANITIZE OR "leak" IN_LIST TRITON_JIT_SANITIZE))
    message(FATAL_ERROR "TRITON_JIT_SANITIZE: thread cannot be combined with address or leak "
                        "(the runtimes exclude each other): build them in separate folders")
  endif()
  list(JOIN TRITON_JIT_SANITIZE "," _tj_list)
  # Frame pointers and line tables: reports with usable stacks at little build cost. A UBSan
  # finding aborts (no recovery), so a test with undefined behaviour fails instead of printing
  # a line nobody reads.
  set(_tj_flags "-fsanitize=${_tj_list}" -fno-omit-frame-pointer -g1)
  if("undefined" IN_LIST TRITON_JIT_SANITIZE)
    list(APPEND _tj_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${_tj_flags})
  add_link_options("-fsanitize=${_tj_list}")
  message(STATUS "Sanitizers: ${_tj_list}")
endif()
