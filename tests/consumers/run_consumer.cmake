# Configures, builds and runs one consumer project; run with cmake -P.
#   MODE            find_package (install MAIN_BUILD_DIR into PREFIX first) or subdirectory
#   CONSUMER_DIR    the consumer project's source
#   BUILD_DIR       its build directory (kept between runs: rebuilds are incremental)
#   PREFIX          install prefix (find_package; emptied first)
#   MAIN_BUILD_DIR  this repository's build tree (find_package)
#   SOURCE_DIR      this repository (subdirectory)
#   KERNEL          a kernel file; FUNCTION its function; EXPECT text the output must contain
#   Python3_EXECUTABLE, pybind11_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(configure_args
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DPython3_EXECUTABLE=${Python3_EXECUTABLE}"
  "-Dpybind11_DIR=${pybind11_DIR}")

if(MODE STREQUAL "find_package")
  file(REMOVE_RECURSE "${PREFIX}")
  step("installing libtriton_jit" "${CMAKE_COMMAND}" --install "${MAIN_BUILD_DIR}" --prefix "${PREFIX}")
  foreach(f include/triton_jit/triton_jit.h)
    if(NOT EXISTS "${PREFIX}/${f}")
      message(FATAL_ERROR "the install has no ${f}")
    endif()
  endforeach()
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${PREFIX}")
elseif(MODE STREQUAL "subdirectory")
  list(APPEND configure_args "-DTRITON_JIT_SOURCE_DIR=${SOURCE_DIR}")
else()
  message(FATAL_ERROR "MODE must be find_package or subdirectory")
endif()

step("configuring ${CONSUMER_DIR}" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${BUILD_DIR}" ${configure_args})
step("building ${CONSUMER_DIR}" "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --parallel 2)
step("running print_signature" "${BUILD_DIR}/print_signature" "${KERNEL}" "${FUNCTION}")
message("${step_output}")
foreach(expected IN LISTS EXPECT)
  string(FIND "${step_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the output lacks '${expected}'")
  endif()
endforeach()
