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
# requires (cmake/precompiled_headers.cmake).
include_guard(GLOBAL)
include("${PROJECT_SOURCE_DIR}/cmake/precompiled_headers.cmake")

if(NOT TARGET triton_jit_internal OR NOT TRITON_JIT_PRECOMPILED_HEADERS OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  function(triton_jit_python_pch target)
  endfunction()
  return()
endif()

set(_pch_main "${CMAKE_CURRENT_BINARY_DIR}/generated/python_pch_main.cpp")
file(CONFIGURE OUTPUT "${_pch_main}" CONTENT "int main() { return 0; }\n")
add_executable(triton_jit_test_python_pch "${_pch_main}")
target_link_libraries(triton_jit_test_python_pch PRIVATE triton_jit_internal GTest::gtest Threads::Threads)
triton_jit_precompiled_headers(triton_jit_test_python_pch HEADERS <pybind11/embed.h> <pybind11/stl.h> <gtest/gtest.h>)

function(triton_jit_python_pch target)
  foreach(_src IN LISTS ARGN)
    get_filename_component(_path "${_src}" ABSOLUTE)
    if(NOT EXISTS "${_path}")
      continue()
    endif()
    file(STRINGS "${_path}" _python_includes REGEX "#include [<\"](pybind11/|bridge/interpreter.h|.*python_reference.h)")
    if(_python_includes)
      triton_jit_precompiled_headers(${target} REUSE_FROM triton_jit_test_python_pch)
      return()
    endif()
  endforeach()
endfunction()
