# triton_jit._torch_native (src/torch_native_module.cpp): libtorch called from C++ where torch's Python
# API would cost a launch more than its work: torch outputs of triton_jit.empty_like (not through
# torch.empty_like's Python argument parsing), what a launch reads of each torch tensor
# (data_ptr(), dtype, is_cuda, get_device() without a Python call each) and torch's current
# stream (through c10, without torch._C._cuda_getCurrentRawStream). Optional: built
# when the build's python imports torch and CMake finds its config; _C loads it lazily and only
# when the imported torch is the one it was built against (recorded here as torch.__version__).
# It is linked by path without a run path: _C imports it only after torch, whose libraries are
# then loaded, so neither the build tree nor a wheel carries this machine's torch location.
option(TRITON_JIT_BUILD_TORCH_NATIVE "Build triton_jit._torch_native when the build's python imports torch" ON)
if(NOT TRITON_JIT_BUILD_TORCH_NATIVE)
  return()
endif()
if(TRITON_JIT_SANITIZE)
  # It loads only into a torch process, which a sanitized build's tests (the CPU ones) never start.
  message(STATUS "TRITON_JIT_SANITIZE is set: triton_jit._torch_native is not built")
  return()
endif()
execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import torch, torch.utils; print(torch.__version__); print(torch.utils.cmake_prefix_path)"
                OUTPUT_VARIABLE _torch_probe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _torch_rc)
if(NOT _torch_rc EQUAL 0 OR NOT _torch_probe)
  message(STATUS "no torch in ${Python3_EXECUTABLE}: triton_jit._torch_native is not built (torch tensors are "
                 "read and allocated through torch's Python API)")
  return()
endif()
string(REPLACE "\n" ";" _torch_probe "${_torch_probe}")
list(GET _torch_probe 0 _torch_python_version)
list(GET _torch_probe 1 _torch_cmake_prefix)
if(NOT TARGET torch)  # else found already by the libtorch layer (torch/CMakeLists.txt)
  list(APPEND CMAKE_PREFIX_PATH "${_torch_cmake_prefix}")
  if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})  # no CUDA code here; keeps torch's config quiet
    set(ENV{TORCH_CUDA_ARCH_LIST} "9.0")
  endif()
  find_package(Torch CONFIG QUIET)
endif()
get_filename_component(_torch_root "${_torch_cmake_prefix}/../.." ABSOLUTE)
foreach(lib torch_python torch_cpu c10)
  find_library(TRITON_JIT_TORCH_NATIVE_${lib} ${lib} PATHS "${_torch_root}/lib" NO_DEFAULT_PATH)
endforeach()
if(NOT TARGET torch OR NOT TRITON_JIT_TORCH_NATIVE_torch_python OR NOT TRITON_JIT_TORCH_NATIVE_torch_cpu
   OR NOT TRITON_JIT_TORCH_NATIVE_c10)
  message(STATUS "torch ${_torch_python_version}'s CMake config or libraries not found under ${_torch_root}: "
                 "triton_jit._torch_native is not built")
  return()
endif()
message(STATUS "torch ${_torch_python_version}: building triton_jit._torch_native")
get_target_property(_torch_includes torch INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(_torch_options torch INTERFACE_COMPILE_OPTIONS)  # the C++ ABI flag

Python_add_library(triton_jit_torch_native MODULE WITH_SOABI src/torch_native_module.cpp)
target_include_directories(triton_jit_torch_native PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
target_include_directories(triton_jit_torch_native SYSTEM PRIVATE ${_torch_includes})
if(_torch_options)
  target_compile_options(triton_jit_torch_native PRIVATE ${_torch_options})
endif()
target_compile_definitions(triton_jit_torch_native PRIVATE "TRITON_JIT_TORCH_VERSION=\"${_torch_python_version}\"")
target_compile_features(triton_jit_torch_native PRIVATE cxx_std_17)
target_link_libraries(triton_jit_torch_native PRIVATE "${TRITON_JIT_TORCH_NATIVE_torch_python}"
                      "${TRITON_JIT_TORCH_NATIVE_torch_cpu}" "${TRITON_JIT_TORCH_NATIVE_c10}")
set_target_properties(triton_jit_torch_native PROPERTIES
  OUTPUT_NAME _torch_native
  LIBRARY_OUTPUT_DIRECTORY "${TRITON_JIT_PYTHON_PACKAGE_DIR}"
  CXX_VISIBILITY_PRESET hidden
  SKIP_BUILD_RPATH ON)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(triton_jit_torch_native PRIVATE -Wall -Wextra)
endif()
add_dependencies(triton_jit_python triton_jit_torch_native)
if(SKBUILD)
  install(TARGETS triton_jit_torch_native LIBRARY DESTINATION triton_jit)
endif()
