# triton_jit_gtest_suites(TARGET PREFIX prefix [TIMEOUT s] [LABELS label...]
#                         [OWN_PROCESS suite...] [COST s])
#
# One CTest test per GoogleTest *suite* of TARGET (PREFIX<Suite>, running
# `TARGET --gtest_filter=<Suite>.*`), instead of gtest_discover_tests' one test, and so one
# process, per case. Most CPU test cases start the embedded Python and import Triton, about a
# second of a 2-core machine each: a suite of 13 cases takes 6.8 s in one process against 24 s
# in 13 (cpu_specialization_test). Cases that need a process of their own (the environment read
# at start-up, an interpreter not started yet, counters that start at zero) are in suites named
# in OWN_PROCESS: each of their cases stays a test of its own, PREFIX<Suite>.<Case>, as before.
#
# A failing case names itself in the output ("[  FAILED  ] Suite.Case", printed by ctest
# --output-on-failure). A suite whose cases were all skipped (GTEST_SKIP) reports as skipped;
# one with some cases skipped passes, its output listing them ("[  SKIPPED ]").
#
# Suites are listed when ctest starts (from `TARGET --gtest_list_tests`, again whenever the
# executable changed), as gtest_discover_tests' PRE_TEST mode does: no CMake run is needed when
# cases are added. TIMEOUT applies per case: a suite gets TIMEOUT for each of its cases (at most
# 1800 s).
set(_TRITON_JIT_GTEST_SUITES_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/gtest_suites_list.cmake")

function(triton_jit_gtest_suites target)
  cmake_parse_arguments(ARG "" "PREFIX;TIMEOUT;COST" "LABELS;OWN_PROCESS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  if(NOT ARG_COST)
    set(ARG_COST 0)
  endif()
  string(REPLACE ";" "," own_process "${ARG_OWN_PROCESS}")
  string(REPLACE ";" "," labels "${ARG_LABELS}")
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites")
  set(tests_file "${base}_tests.cmake")
  string(CONCAT content
    "if(EXISTS \"$<TARGET_FILE:${target}>\")\n"
    "  if(NOT EXISTS \"${tests_file}\" OR\n"
    "     NOT \"${tests_file}\" IS_NEWER_THAN \"$<TARGET_FILE:${target}>\" OR\n"
    "     NOT \"${tests_file}\" IS_NEWER_THAN \"\${CMAKE_CURRENT_LIST_FILE}\")\n"
    "    include(\"${_TRITON_JIT_GTEST_SUITES_SCRIPT}\")\n"
    "    triton_jit_list_gtest_suites(\n"
    "      EXECUTABLE [==[$<TARGET_FILE:${target}>]==]\n"
    "      PREFIX [==[${ARG_PREFIX}]==]\n"
    "      TIMEOUT [==[${ARG_TIMEOUT}]==]\n"
    "      COST [==[${ARG_COST}]==]\n"
    "      LABELS [==[${labels}]==]\n"
    "      OWN_PROCESS [==[${own_process}]==]\n"
    "      WORKING_DIRECTORY [==[${CMAKE_CURRENT_BINARY_DIR}]==]\n"
    "      OUTPUT [==[${tests_file}]==])\n"
    "  endif()\n"
    "  include(\"${tests_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  file(GENERATE OUTPUT "${base}_include.cmake" CONTENT "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}_include.cmake")
endfunction()
