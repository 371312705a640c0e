# Configures, builds and runs one consumer project; run with cmake -P.
#   MODE            find_package (install MAIN_BUILD_DIR into PREFIX first), subdirectory, or deb
#                   (cpack the build into a .deb and a .tar.gz, unpack the .deb into PREFIX with
#                   dpkg-deb -x, as `dpkg -i` would lay it out under /)
#   CONSUMER_DIR    the consumer project's source
#   BUILD_DIR       its build directory (kept between runs: rebuilds are incremental)
#   PREFIX          install prefix (find_package, deb; emptied first)
#   MAIN_BUILD_DIR  this repository's build tree (find_package, deb)
#   SOURCE_DIR      this repository (subdirectory)
#   PROGRAM         the consumer's program; ARGS its arguments; EXPECT text its output must contain
#   TORCH_DIR       libtorch's CMake package (for the torch component), when not empty
#   CONFIGURE_FAILS_WITH  when set, configuring must fail with this text (nothing is built)
#   Python3_EXECUTABLE, pybind11_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_output what)
  foreach(expected IN LISTS ARGN)
    string(FIND "${step_output}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the output of ${what} lacks '${expected}':\n${step_output}")
    endif()
  endforeach()
endfunction()

function(expect_files root)
  foreach(f IN LISTS ARGN)
    if(NOT EXISTS "${root}/${f}")
      message(FATAL_ERROR "${root} has no ${f}")
    endif()
  endforeach()
endfunction()

set(configure_args
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DPython3_EXECUTABLE=${Python3_EXECUTABLE}"
  "-Dpybind11_DIR=${pybind11_DIR}")
# ccache, where installed: the subdirectory build compiles the library with this build's flags
# from a folder at the same depth, with its ccache base folder (tests/consumers/CMakeLists.txt),
# and so takes the library's objects from this build's.
find_program(CCACHE ccache)
if(CCACHE AND NOT "$ENV{TRITON_JIT_CCACHE}" STREQUAL "0")
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE}")
endif()
# What every package holds: the library, its headers, the CMake package and the tool.
set(installed_files lib/libtriton_jit.so include/triton_jit/triton_jit.h lib/cmake/TritonJit/TritonJitConfig.cmake
                    lib/cmake/TritonJit/TritonJitTargets.cmake bin/triton-jit)

if(MODE STREQUAL "find_package")
  file(REMOVE_RECURSE "${PREFIX}")
  step("installing libtriton_jit" "${CMAKE_COMMAND}" --install "${MAIN_BUILD_DIR}" --prefix "${PREFIX}")
  expect_files("${PREFIX}" include/triton_jit/triton_jit.h)
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${PREFIX}")
  if(TORCH_DIR)
    list(APPEND configure_args "-DTorch_DIR=${TORCH_DIR}")
  endif()
elseif(MODE STREQUAL "deb")
  find_program(DPKG_DEB dpkg-deb)
  get_filename_component(cmake_bin "${CMAKE_COMMAND}" DIRECTORY)
  find_program(CPACK cpack HINTS "${cmake_bin}")
  if(NOT DPKG_DEB OR NOT CPACK)
    message("SKIPPED: dpkg-deb or cpack not found")
    return()
  endif()
  get_filename_component(packages "${PREFIX}/../packages" ABSOLUTE)
  file(REMOVE_RECURSE "${PREFIX}" "${packages}")
  step("cpack" "${CPACK}" --config "${MAIN_BUILD_DIR}/CPackConfig.cmake" -B "${packages}")
  file(GLOB debs "${packages}/*.deb")
  file(GLOB tgzs "${packages}/*.tar.gz")
  list(LENGTH debs n_deb)
  list(LENGTH tgzs n_tgz)
  if(NOT n_deb EQUAL 1 OR NOT n_tgz EQUAL 1)
    message(FATAL_ERROR "cpack made ${n_deb} .deb and ${n_tgz} .tar.gz files, expected one each:\n${debs}\n${tgzs}")
  endif()
  step("reading the .deb's control fields" "${DPKG_DEB}" --field "${debs}" Package Version Depends)
  expect_output("the .deb's control fields" "Package: libtriton-jit" "Version: ${VERSION}")
  step("unpacking ${debs}" "${DPKG_DEB}" -x "${debs}" "${PREFIX}")
  expect_files("${PREFIX}/usr" ${installed_files})
  # The archive holds the same files below one folder.
  file(MAKE_DIRECTORY "${packages}/tgz")
  step("unpacking ${tgzs}" "${CMAKE_COMMAND}" -E chdir "${packages}/tgz" "${CMAKE_COMMAND}" -E tar xzf "${tgzs}")
  file(GLOB tgz_root "${packages}/tgz/*")
  expect_files("${tgz_root}" ${installed_files})
  # The tool runs from where the package put it (it finds the library relative to itself).
  step("running the packaged triton-jit" "${PREFIX}/usr/bin/triton-jit" --version)
  expect_output("triton-jit --version" "${VERSION}")
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${PREFIX}/usr")
elseif(MODE STREQUAL "subdirectory")
  list(APPEND configure_args "-DTRITON_JIT_SOURCE_DIR=${SOURCE_DIR}")
else()
  message(FATAL_ERROR "MODE must be find_package, deb or subdirectory")
endif()

if(CONFIGURE_FAILS_WITH)
  file(REMOVE_RECURSE "${BUILD_DIR}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${BUILD_DIR}" ${configure_args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "configuring ${CONSUMER_DIR} succeeded; expected it to fail with '${CONFIGURE_FAILS_WITH}'")
  endif()
  # CMake wraps the reason given by a package: compare with runs of spaces and newlines as one space.
  string(REGEX REPLACE "[ \n]+" " " step_output "${out}${err}")
  expect_output("configuring ${CONSUMER_DIR}" "${CONFIGURE_FAILS_WITH}")
  message("${err}")
  return()
endif()
step("configuring ${CONSUMER_DIR}" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${BUILD_DIR}" ${configure_args})
step("building ${CONSUMER_DIR}" "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --parallel 2)
step("running ${PROGRAM}" "${BUILD_DIR}/${PROGRAM}" ${ARGS})
message("${step_output}")
expect_output("${PROGRAM}" ${EXPECT})
