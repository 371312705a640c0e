# Precompiled headers for targets of many files that each spend seconds parsing the same large
# third-party headers: the test programs that embed Python (pybind11/embed.h: 6 to 8 s of a file
# at -O0). Not for the library's own objects: their compile commands would then name the header's
# path in the build folder, which differs where the library is a subdirectory of another project
# (consumers.subdirectory), so ccache could not serve such a build the objects of this one (the
# bridge's pybind11 would save 24 s of compiler time and cost that test about 90). Not for
# libtorch's either: ATen.h takes 25 s to precompile and saves about 7 s a file, too few files.
#
# triton_jit_precompiled_headers(TARGET [REUSE_FROM OTHER] [HEADERS <h>...]): TARGET parses HEADERS
# once (or loads OTHER's, built with exactly the same flags, as GCC requires), with -Winvalid-pch
# so that a refused header says so instead of silently costing the time again. ccache caches such
# files only when told that the header's macros and time stamps may be ignored (sloppiness): set
# on these targets alone. Off with TRITON_JIT_PRECOMPILED_HEADERS=OFF (a compiler that mishandles
# them), and for compilers other than GCC and Clang.
include_guard(GLOBAL)

option(TRITON_JIT_PRECOMPILED_HEADERS "Precompile pybind11's and GoogleTest's headers for the test programs that include them" ON)

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
