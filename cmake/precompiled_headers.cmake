# Precompiled headers for targets of many files that each spend seconds parsing the same large
# third-party headers: pybind11 in the bridge (4 s of a 16 s file, 7 s to precompile) and in the
# test programs that embed Python (pybind11/embed.h: 6 to 8 s of a file at -O0). Not for libtorch:
# ATen.h takes 25 s to precompile and saves about 7 s a file, too few files to repay it.
#
# triton_jit_precompiled_headers(TARGET [REUSE_FROM OTHER] [HEADERS <h>...]): TARGET parses HEADERS
# once (or loads OTHER's, built with exactly the same flags, as GCC requires), with -Winvalid-pch
# so that a refused header says so instead of silently costing the time again. ccache caches such
# files only when told that the header's macros and time stamps may be ignored (sloppiness): set
# on these targets alone. Off with TRITON_JIT_PRECOMPILED_HEADERS=OFF (a compiler that mishandles
# them), and for compilers other than GCC and Clang.
include_guard(GLOBAL)

option(TRITON_JIT_PRECOMPILED_HEADERS "Precompile pybind11's and GoogleTest's headers for the targets that include them" ON)

function(triton_jit_precompiled_headers target)
  cmake_parse_arguments(ARG "" "REUSE_FROM" "HEADERS" ${ARGN})
  if(NOT TRITON_JIT_PRECOMPILED_HEADERS OR NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    return()
  endif()
  if(ARG_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${ARG_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${ARG_HEADERS})
  endif()
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER
                 "${CMAKE_COMMAND}" -E env CCACHE_SLOPPINESS=pch_defines,time_macros ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  target_compile_options(${target} PRIVATE -Winvalid-pch)
endfunction()
