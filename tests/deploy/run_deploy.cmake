# A deployment without Python, end to end; run with cmake -P (tests/deploy/CMakeLists.txt).
#   MAIN_BUILD_DIR  this build tree (installed into PREFIX); CLI its triton-jit (builds the pack)
#   PREFIX, WORK    the install prefix and a scratch folder (both emptied first)
#   PROBE_DIR       the probe project (built against PREFIX)
#   KERNEL          add.py (add_kernel); Python3_EXECUTABLE, PYTHON_LIBDIR (its libpython's folder),
#   PYTHON_SONAME, GENERATOR, CXX_COMPILER
# The probe runs with no LD_LIBRARY_PATH, no TRITON_JIT_PYTHON and no kernel index, so every
# kernel comes from the pack or from a compile.

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# probe(NAME BLOCK [ENV VAR=VALUE...] [EXPECT regex...] [REJECT regex...] [RC n|ANY]): runs the probe
# on the pack with the kernel's BLOCK, checks its output (stdout and stderr together).
function(probe name block)
  cmake_parse_arguments(ARG "" "RC" "ENV;EXPECT;REJECT" ${ARGN})
  if(NOT DEFINED ARG_RC)
    set(ARG_RC 0)
  endif()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH --unset=TRITON_JIT_PYTHON --unset=VIRTUAL_ENV
            --unset=TRITON_JIT_OFFLINE --unset=TRITON_JIT_PACKS "TRITON_JIT_INDEX_DIR=" ${ARG_ENV}
            "${WORK}/probe-build/deploy_probe" "${WORK}/kernels.tjp" "${WORK}/add.py" add_kernel ${block}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("---- ${name} (exit ${rc})\n${out}")
  if(NOT ARG_RC STREQUAL "ANY" AND NOT rc EQUAL ARG_RC)
    message(FATAL_ERROR "${name}: the probe exited with ${rc}, expected ${ARG_RC}")
  endif()
  foreach(re IN LISTS ARG_EXPECT)
    if(NOT out MATCHES "${re}")
      message(FATAL_ERROR "${name}: the output does not match '${re}'")
    endif()
  endforeach()
  foreach(re IN LISTS ARG_REJECT)
    if(out MATCHES "${re}")
      message(FATAL_ERROR "${name}: the output matches '${re}', which it must not")
    endif()
  endforeach()
endfunction()

find_program(READELF readelf REQUIRED)
function(dynamic_section file out)
  step("readelf ${file}" "${READELF}" -d "${file}")
  set(${out} "${step_output}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${PREFIX}" "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
step("installing libtriton_jit" "${CMAKE_COMMAND}" --install "${MAIN_BUILD_DIR}" --prefix "${PREFIX}")
file(GLOB core "${PREFIX}/lib*/libtriton_jit.so.*.*.*")
file(GLOB bridge "${PREFIX}/lib*/libtriton_jit_python.so")
if(NOT core OR NOT bridge)
  message(FATAL_ERROR "the install lacks libtriton_jit.so.X.Y.Z or libtriton_jit_python.so: '${core}' '${bridge}'")
endif()

# The installed core needs no libpython; neither library names a folder of the build machine's Python.
dynamic_section("${core}" core_dynamic)
dynamic_section("${bridge}" bridge_dynamic)
if(core_dynamic MATCHES "libpython")
  message(FATAL_ERROR "the installed core depends on libpython:\n${core_dynamic}")
endif()
# Nor does the bridge: it takes Python's symbols from the process (a Python host's own, or the
# libpython the core loads before it), so a host linked statically never gets a second one.
if(bridge_dynamic MATCHES "libpython")
  message(FATAL_ERROR "the installed bridge depends on libpython:\n${bridge_dynamic}")
endif()
foreach(dynamic IN ITEMS "${core_dynamic}" "${bridge_dynamic}")
  string(FIND "${dynamic}" "${PYTHON_LIBDIR}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "an installed library's RUNPATH names the build's Python folder ${PYTHON_LIBDIR}:\n${dynamic}")
  endif()
endforeach()

step("configuring the probe" "${CMAKE_COMMAND}" -S "${PROBE_DIR}" -B "${WORK}/probe-build" -G "${GENERATOR}"
     "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${PREFIX}")
step("building the probe" "${CMAKE_COMMAND}" --build "${WORK}/probe-build")
step("ldd deploy_probe" "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH ldd "${WORK}/probe-build/deploy_probe")
message("ldd deploy_probe:\n${step_output}")
if(step_output MATCHES "libpython")
  message(FATAL_ERROR "the probe, linked against the installed core, loads libpython:\n${step_output}")
endif()
if(NOT step_output MATCHES "libtriton_jit.so[^\n]*=> ${PREFIX}/")
  message(FATAL_ERROR "the probe does not take libtriton_jit from ${PREFIX}:\n${step_output}")
endif()

# The pack, built by this build's triton-jit (with Python): add_kernel with BLOCK 256 only.
configure_file("${KERNEL}" "${WORK}/add.py" COPYONLY)
file(WRITE "${WORK}/kernels.manifest" "add.py:add_kernel *fp32:16,*fp32:16,*fp32:16,i32,256 target=cuda:90\n")
step("building the pack" "${CMAKE_COMMAND}" -E env "TRITON_JIT_PYTHON=${Python3_EXECUTABLE}"
     "${CLI}" pack "${WORK}/kernels.manifest" --out "${WORK}/kernels.tjp")

set(no_python "python_used=0 bridge_loaded=0 libpython_loaded=0")

# Python-free runs never load the bridge, even where it is installed.
probe("pack hit, bridge installed" 256 EXPECT "result=ok kernels_from_pack=1 compiles=0" "${no_python}")
probe("offline miss, bridge installed" 512 RC 3 ENV TRITON_JIT_OFFLINE=1
      EXPECT "error=MissingKernelError: no kernel for add_kernel" "offline mode is on"
             "manifest_line=[^\n]*/add.py:add_kernel \\*fp32:16,\\*fp32:16,\\*fp32:16,i32,512" "${no_python}")

# A miss compiles through the installed bridge, with the python found as a user expects it.
probe("miss, TRITON_JIT_PYTHON" 512 ENV "TRITON_JIT_PYTHON=${Python3_EXECUTABLE}" TRITON_JIT_LOG=debug
      EXPECT "python: [^\n]* \\(from TRITON_JIT_PYTHON\\)" "loaded the Python bridge library"
             "result=ok kernels_from_pack=0 compiles=1" "python_used=1 bridge_loaded=1 libpython_loaded=1")
# The index, filled by a compile, serves the next process without Python.
probe("miss, compiled into the index" 1024 ENV "TRITON_JIT_PYTHON=${Python3_EXECUTABLE}" "TRITON_JIT_INDEX_DIR=${WORK}/index"
      EXPECT "result=ok kernels_from_pack=0 compiles=1 index_hits=0")
probe("index hit" 1024 ENV "TRITON_JIT_PYTHON=${Python3_EXECUTABLE}" "TRITON_JIT_INDEX_DIR=${WORK}/index"
      EXPECT "result=ok kernels_from_pack=0 compiles=0 index_hits=1" "${no_python}")
get_filename_component(python_bin "${Python3_EXECUTABLE}" DIRECTORY)
get_filename_component(python_env "${python_bin}" DIRECTORY)
if(EXISTS "${python_env}/pyvenv.cfg")
  probe("miss, VIRTUAL_ENV" 512 ENV "VIRTUAL_ENV=${python_env}" TRITON_JIT_LOG=debug
        EXPECT "python: ${python_env}/bin/python[^\n]* \\(from the active virtualenv \\(VIRTUAL_ENV\\)\\)"
               "result=ok kernels_from_pack=0 compiles=1")
else()
  message("---- miss, VIRTUAL_ENV: skipped (${Python3_EXECUTABLE} is not in a virtualenv)")
endif()
# A virtualenv made with --copies (no symlink to its base python): its pyvenv.cfg says where the
# base is, so it is taken for the Python it is (it has no triton: that is the error).
step("making a --copies virtualenv" "${Python3_EXECUTABLE}" -m venv --copies --without-pip "${WORK}/copies-venv")
probe("miss, --copies virtualenv" 512 RC 3 ENV "TRITON_JIT_PYTHON=${WORK}/copies-venv/bin/python" TRITON_JIT_LOG=debug
      EXPECT "python: ${WORK}/copies-venv/bin/python \\(from TRITON_JIT_PYTHON\\)" "loaded the Python bridge library"
             "error=MissingKernelError: [^\n]*cannot import triton"
      REJECT "is not a Python")
# A python of another version than the bridge's is refused before anything is loaded.
file(MAKE_DIRECTORY "${WORK}/other-python/bin" "${WORK}/other-python/lib/python3.99")
file(WRITE "${WORK}/other-python/lib/python3.99/os.py" "")
file(WRITE "${WORK}/other-python/bin/python3.99" "#!/bin/sh\nexit 1\n")
file(CHMOD "${WORK}/other-python/bin/python3.99" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
probe("miss, another Python version" 512 RC 3 ENV "TRITON_JIT_PYTHON=${WORK}/other-python/bin/python3.99"
      EXPECT "error=MissingKernelError: [^\n]*other-python/bin/python3.99 \\(from TRITON_JIT_PYTHON\\), is not a Python "
             "manifest_line=[^\n]*/add.py:add_kernel " "${no_python}")
# Installed, the build's python is never the default: with neither variable, python3 on PATH.
file(MAKE_DIRECTORY "${WORK}/path-bin")
file(CREATE_LINK "${Python3_EXECUTABLE}" "${WORK}/path-bin/python3" SYMBOLIC)
probe("miss, python3 on PATH" 512 ENV "PATH=${WORK}/path-bin:/usr/bin:/bin" TRITON_JIT_LOG=debug
      EXPECT "python: ${WORK}/path-bin/python3 \\(from python3 on PATH\\)"
      REJECT "configured with" RC ANY)

# pyenv's python3 is a shim, a shell script that runs the selected version: the python behind it
# is the one to compile with (it was taken for the script's own prefix: "not a Python 3.x").
file(MAKE_DIRECTORY "${WORK}/shim-bin")
file(WRITE "${WORK}/shim-bin/python3" "#!/bin/sh\n# like pyenv's shims\nexec '${Python3_EXECUTABLE}' \"$@\"\n")
file(CHMOD "${WORK}/shim-bin/python3" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
probe("miss, python3 on PATH is a shim script" 512 ENV "PATH=${WORK}/shim-bin:/usr/bin:/bin" TRITON_JIT_LOG=debug
      EXPECT "python: /[^\n]* \\(from python3 on PATH, a script running /[^\n]*\\)"
             "result=ok kernels_from_pack=0 compiles=1"
      REJECT "is not a Python")

# libpython missing: a python of the right version whose prefix has no libpython. Only where the
# loader's default search cannot find one either.
execute_process(COMMAND ldconfig -p OUTPUT_VARIABLE ldconfig_out ERROR_QUIET)
string(REGEX MATCH "python([0-9]+\\.[0-9]+)" _ "${PYTHON_SONAME}")
set(py_version "${CMAKE_MATCH_1}")
if(ldconfig_out MATCHES "${PYTHON_SONAME}")
  message("---- miss, no libpython: skipped (${PYTHON_SONAME} is on the loader's default path)")
else()
  file(MAKE_DIRECTORY "${WORK}/bare-python/bin" "${WORK}/bare-python/lib/python${py_version}")
  file(WRITE "${WORK}/bare-python/lib/python${py_version}/os.py" "")
  file(WRITE "${WORK}/bare-python/bin/python${py_version}" "#!/bin/sh\nexit 1\n")
  file(CHMOD "${WORK}/bare-python/bin/python${py_version}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  probe("miss, no libpython" 512 RC 3 ENV "TRITON_JIT_PYTHON=${WORK}/bare-python/bin/python${py_version}"
        EXPECT "error=MissingKernelError: no kernel for add_kernel" "could not be loaded \\([^\n]*${PYTHON_SONAME}"
               "manifest_line=[^\n]*/add.py:add_kernel " "python_used=0 bridge_loaded=0")
endif()

# A bridge that the loader refuses (here: not an ELF file; elsewhere: no libpython) is the same
# MissingKernelError, with the loader's reason.
file(WRITE "${bridge}" "not a shared library\n")
probe("miss, bridge unloadable" 512 RC 3 ENV "TRITON_JIT_PYTHON=${Python3_EXECUTABLE}"
      EXPECT "error=MissingKernelError: no kernel for add_kernel [^\n]*libtriton_jit_python.so could not be loaded \\("
             "manifest_line=[^\n]*/add.py:add_kernel " "python_used=0 bridge_loaded=0")

# The bridge library deleted, as a deployment without Python ships: hits run, a miss is the
# MissingKernelError with the manifest line, not a loader error.
file(REMOVE "${bridge}")
probe("pack hit, no bridge" 256 EXPECT "result=ok kernels_from_pack=1 compiles=0" "${no_python}")
probe("miss, no bridge" 512 RC 3 ENV "TRITON_JIT_PYTHON=${Python3_EXECUTABLE}"
      EXPECT "error=MissingKernelError: no kernel for add_kernel" "libtriton_jit_python.so is not installed"
             "manifest_line=[^\n]*/add.py:add_kernel \\*fp32:16,\\*fp32:16,\\*fp32:16,i32,512" "${no_python}")
message("deployment without Python: all checks passed")
