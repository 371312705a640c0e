# triton_jit_unity_groups(TARGET "a.cpp,b.cpp" "c.cpp,d.cpp" ...): each comma-separated list of
# TARGET's sources compiles as one file (a unity build: <build>/unity/TARGET_N.cpp includes them);
# sources in no list compile on their own.
#
# Files that include the same heavy headers (pybind11, libtorch, GoogleTest) each parse them and
# instantiate the same templates again: the Python bridge's seven pybind11 files took about 70 s
# of compiler time one by one and 21 s as one, the operator library's six libtorch files 70 s
# and 26 s, six CPU test files 58 s and 18 s. The files of a group share one namespace scope: no
# two of them may define the same name in an anonymous namespace (a redefinition fails to
# compile; an overload with other parameters would be chosen silently, so helpers shared by
# several test files live in tests/cpu/test_util.h and tests/support/). TRITON_JIT_UNITY=OFF
# compiles each file on its own (to find such a clash, or to compile one file while editing it).
# A file with compile definitions or options of its own must not be in a group.
include_guard(GLOBAL)

option(TRITON_JIT_UNITY "Compile groups of C++ files that share heavy headers as one file each (cmake/unity_groups.cmake)" ON)

function(triton_jit_unity_groups target)
  if(NOT TRITON_JIT_UNITY OR NOT ARGN)
    return()
  endif()
  # A fixture in a file's anonymous namespace is, in a unity file, one "of another file" to GCC,
  # which warns of every TEST_F deriving from it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  # The unity files are written here rather than by CMake's UNITY_BUILD, whose files lie in the
  # target's own folder: ccache hashes a file's path (relative to the build folder), and where
  # the library is a subdirectory of another project (consumers.subdirectory) that folder is
  # another, so none of this build's objects would serve it. Under the top build folder, at the
  # same path in any build, with the same content (the sources by absolute path), they do.
  get_target_property(sources ${target} SOURCES)
  set(group 0)
  foreach(members IN LISTS ARGN)
    string(REPLACE "," ";" members "${members}")
    set(unity "${CMAKE_BINARY_DIR}/unity/${target}_${group}.cpp")
    set(content "// ${target}'s group ${group}, compiled as one file (cmake/unity_groups.cmake).\n")
    foreach(member IN LISTS members)
      list(FIND sources "${member}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "triton_jit_unity_groups: ${member} is not a source of ${target}")
      endif()
      list(REMOVE_AT sources ${at})
      get_filename_component(path "${member}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      string(APPEND content "#include \"${path}\"\n")
    endforeach()
    file(GENERATE OUTPUT "${unity}" CONTENT "${content}")
    list(APPEND sources "${unity}")
    math(EXPR group "${group} + 1")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${sources})
endfunction()
