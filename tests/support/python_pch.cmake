# One precompiled header of pybind11 and GoogleTest for the C++ test programs that embed Python.
# pybind11's headers alone take 6 to 8 s of compiler time per file at -O0 (pybind11/embed.h:
# 8.0 s, a file including nothing else); about twenty test files include them (the Python
# references of tests/support/python_reference.h, src/bridge/interpreter.h). Parsed once here,
# each of those files loads the result instead.
#
# triton_jit_python_pch(TARGET SOURCES...): TARGET reuses the header when one of SOURCES includes
# pybind11 (directly, or through interpreter.h or python_reference.h).
#
# The header is built by an executable of its own (an empty main) so that it has exactly the
# flags of the test executables that reuse it (-O0 included, tests/CMakeLists.txt), as GCC
# requires; -Winvalid-pch says so should one be refused. ccache caches such files only when told
# that the header's macros and time stamps may be ignored (sloppiness), on these targets alone.
include_guard(GLOBAL)

if(NOT TARGET triton_jit_internal OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  function(triton_jit_python_pch target)
  endfunction()
  return()
endif()

set(_pch_main "${CMAKE_CURRENT_BINARY_DIR}/generated/python_pch_main.cpp")
file(CONFIGURE OUTPUT "${_pch_main}" CONTENT "int main() { return 0; }\n")
add_executable(triton_jit_test_python_pch "${_pch_main}")
target_link_libraries(triton_jit_test_python_pch PRIVATE triton_jit_internal GTest::gtest Threads::Threads)
target_precompile_headers(triton_jit_test_python_pch PRIVATE <pybind11/embed.h> <pybind11/stl.h> <gtest/gtest.h>)

function(_triton_jit_pch_launcher target)
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER
                 "${CMAKE_COMMAND}" -E env CCACHE_SLOPPINESS=pch_defines,time_macros ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  target_compile_options(${target} PRIVATE -Winvalid-pch)
endfunction()
_triton_jit_pch_launcher(triton_jit_test_python_pch)

function(triton_jit_python_pch target)
  foreach(_src IN LISTS ARGN)
    get_filename_component(_path "${_src}" ABSOLUTE)
    if(NOT EXISTS "${_path}")
      continue()
    endif()
    file(STRINGS "${_path}" _python_includes REGEX "#include [<\"](pybind11/|bridge/interpreter.h|.*python_reference.h)")
    if(_python_includes)
      target_precompile_headers(${target} REUSE_FROM triton_jit_test_python_pch)
      _triton_jit_pch_launcher(${target})
      return()
    endif()
  endforeach()
endfunction()
