# Run by ctest (through the include file triton_jit_gtest_suites writes, tests/support/gtest_suites.cmake):
# lists the suites of a GoogleTest executable and writes OUTPUT, the CTest script that adds one
# test per suite (each case of an OWN_PROCESS suite a test of its own).

function(triton_jit_list_gtest_suites)
  cmake_parse_arguments(ARG "" "EXECUTABLE;PREFIX;TIMEOUT;COST;LABELS;OWN_PROCESS;WORKING_DIRECTORY;OUTPUT" "" ${ARGN})
  # Lists come joined with commas: a list's semicolons would split it into arguments on the way.
  string(REPLACE "," ";" ARG_OWN_PROCESS "${ARG_OWN_PROCESS}")
  string(REPLACE "," ";" ARG_LABELS "${ARG_LABELS}")
  execute_process(COMMAND "${ARG_EXECUTABLE}" --gtest_list_tests
                  WORKING_DIRECTORY "${ARG_WORKING_DIRECTORY}"
                  TIMEOUT 60
                  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "listing the tests of ${ARG_EXECUTABLE} failed (${rc}):\n${listing}\n${errors}")
  endif()
  # Case names and parameter comments may hold characters that CMake's lists take apart.
  string(REPLACE ";" "<semicolon>" listing "${listing}")
  string(REPLACE "[" "<open>" listing "${listing}")
  string(REPLACE "]" "<close>" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")

  set(suites "")
  set(suite "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([^ ]+)")
      # A case of the current suite; disabled ones never run (--gtest_filter leaves them out).
      set(case "${CMAKE_MATCH_1}")
      if(suite STREQUAL "" OR case MATCHES "^DISABLED_")
        continue()
      endif()
      list(APPEND "cases_${suite_id}" "${case}")
    elseif(line MATCHES "^([^ #]+)\\.( .*)?$")
      set(suite "${CMAKE_MATCH_1}")
      if(suite MATCHES "^DISABLED_|/DISABLED_")
        set(suite "")
        continue()
      endif()
      string(MAKE_C_IDENTIFIER "${suite}" suite_id)
      list(APPEND suites "${suite}")
      set("name_${suite_id}" "${suite}")
    endif()
  endforeach()

  set(script "# Written by tests/support/gtest_suites_list.cmake from ${ARG_EXECUTABLE} --gtest_list_tests\n")
  set(cost "")
  if(NOT ARG_COST EQUAL 0)
    set(cost " COST ${ARG_COST}")
  endif()
  foreach(suite IN LISTS suites)
    string(MAKE_C_IDENTIFIER "${suite}" suite_id)
    set(cases "${cases_${suite_id}}")
    list(LENGTH cases n)
    if(n EQUAL 0)
      continue()
    endif()
    # list(FIND), not IN_LIST: ctest reads this file under the old policies.
    list(FIND ARG_OWN_PROCESS "${suite}" own_process)
    if(NOT own_process EQUAL -1)
      foreach(case IN LISTS cases)
        string(APPEND script
          "add_test([==[${ARG_PREFIX}${suite}.${case}]==] [==[${ARG_EXECUTABLE}]==] [==[--gtest_filter=${suite}.${case}]==])\n"
          "set_tests_properties([==[${ARG_PREFIX}${suite}.${case}]==] PROPERTIES"
          " WORKING_DIRECTORY [==[${ARG_WORKING_DIRECTORY}]==] TIMEOUT ${ARG_TIMEOUT}"
          " LABELS [==[${ARG_LABELS}]==] SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\]]==]${cost})\n")
      endforeach()
      continue()
    endif()
    math(EXPR timeout "${ARG_TIMEOUT} * ${n}")
    if(timeout GREATER 1800)
      set(timeout 1800)
    endif()
    if(timeout LESS ARG_TIMEOUT)
      set(timeout ${ARG_TIMEOUT})
    endif()
    # Skipped only when every case was: gtest counts the skipped cases in its summary.
    if(n EQUAL 1)
      set(all_skipped "\\[  SKIPPED \\] 1 test, listed below")
    else()
      set(all_skipped "\\[  SKIPPED \\] ${n} tests, listed below")
    endif()
    string(APPEND script
      "add_test([==[${ARG_PREFIX}${suite}]==] [==[${ARG_EXECUTABLE}]==] [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([==[${ARG_PREFIX}${suite}]==] PROPERTIES"
      " WORKING_DIRECTORY [==[${ARG_WORKING_DIRECTORY}]==] TIMEOUT ${timeout}"
      " LABELS [==[${ARG_LABELS}]==] SKIP_REGULAR_EXPRESSION [==[${all_skipped}]==]${cost})\n")
  endforeach()
  string(REPLACE "<semicolon>" ";" script "${script}")
  string(REPLACE "<open>" "[" script "${script}")
  string(REPLACE "<close>" "]" script "${script}")
  file(WRITE "${ARG_OUTPUT}" "${script}")
endfunction()
