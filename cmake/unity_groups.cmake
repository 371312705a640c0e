# triton_jit_unity_groups(TARGET "a.cpp,b.cpp" "c.cpp,d.cpp" ...): each comma-separated list of
# TARGET's sources compiles as one file (a unity build, CMake's GROUP mode); sources in no list
# compile on their own.
#
# Files that include the same heavy headers (pybind11, libtorch, GoogleTest) each parse them and
# instantiate the same templates again: the Python bridge's seven pybind11 files took about 70 s
# of compiler time one by one and 21 s as one, the operator library's six libtorch files 70 s
# and 26 s, six CPU test files 58 s and 18 s. The files of a group share one namespace scope: no
# two of them may define the same name in an anonymous namespace (a redefinition fails to
# compile; an overload with other parameters would be chosen silently, so helpers shared by
# several test files live in tests/cpu/test_util.h and tests/support/). TRITON_JIT_UNITY=OFF
# compiles each file on its own (to find such a clash, or to compile one file while editing it).
# CMake leaves out of a group any file with compile definitions or options of its own.
include_guard(GLOBAL)

option(TRITON_JIT_UNITY "Compile groups of C++ files that share heavy headers as one file each (cmake/unity_groups.cmake)" ON)

function(triton_jit_unity_groups target)
  if(NOT TRITON_JIT_UNITY OR NOT ARGN)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  # A fixture in a file's anonymous namespace is, in a unity file, one "of another file" to GCC,
  # which warns of every TEST_F deriving from it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  # ccache hashes a file's path for __FILE__, and a unity file's path is its build folder's: told
  # to ignore it, ccache serves the library's nested builds (the wheel, a parent project's
  # subdirectory) this build's objects. Safe: the sources a unity file includes keep their own
  # paths, so __FILE__ in them is the same from any build folder. A launcher of the target's own
  # (precompiled headers' sloppiness) is kept.
  get_target_property(launcher ${target} CXX_COMPILER_LAUNCHER)
  if("${launcher}" STREQUAL "${CMAKE_CXX_COMPILER_LAUNCHER}" AND launcher MATCHES "ccache")
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER
                 "${CMAKE_COMMAND}" -E env CCACHE_SLOPPINESS=file_macro ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  set(group 0)
  foreach(sources IN LISTS ARGN)
    string(REPLACE "," ";" sources "${sources}")
    set_source_files_properties(${sources} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP "${target}_${group}")
    math(EXPR group "${group} + 1")
  endforeach()
endfunction()
