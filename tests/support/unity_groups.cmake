# triton_jit_unity_groups(TARGET "a.cpp,b.cpp" "c.cpp,d.cpp" ...): each comma-separated list of
# TARGET's sources compiles as one file (a unity build, CMake's GROUP mode); sources in no list
# compile on their own.
#
# Test files instantiate the same templates (pybind11's casts, GoogleTest's, the standard
# library's), which a compiler generates once per file: six CPU test files took 58 s of compiler
# time one by one and 18 s as one. The files of a group share one namespace scope: no two of them
# may define the same name in an anonymous namespace (a redefinition fails to compile; an
# overload with other parameters would be chosen silently, so helpers shared by several files
# live in tests/cpu/test_util.h and tests/support/). TRITON_JIT_UNITY_TESTS=OFF compiles each
# file on its own (to find such a clash, or to compile one file while editing it).
include_guard(GLOBAL)

option(TRITON_JIT_UNITY_TESTS "Compile the C++ test files in unity groups (tests/support/unity_groups.cmake)" ON)

function(triton_jit_unity_groups target)
  if(NOT TRITON_JIT_UNITY_TESTS OR NOT ARGN)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  # A fixture in a file's anonymous namespace is, in a unity file, one "of another file" to GCC,
  # which warns of every TEST_F deriving from it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  set(group 0)
  foreach(sources IN LISTS ARGN)
    string(REPLACE "," ";" sources "${sources}")
    set_source_files_properties(${sources} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP "${target}_${group}")
    math(EXPR group "${group} + 1")
  endforeach()
endfunction()
