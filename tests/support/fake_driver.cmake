# The fake CUDA driver (fake_driver.h), one library for the CPU tests and the CPU benchmarks.
# Included by tests/cpu/ and bench/, which may each be built without the other.
include_guard(GLOBAL)

add_library(triton_jit_fake_driver STATIC EXCLUDE_FROM_ALL "${CMAKE_CURRENT_LIST_DIR}/fake_driver.cpp")
# It replaces the runtime's driver table (cuda/driver_api.h): the internal static library.
target_link_libraries(triton_jit_fake_driver PUBLIC triton_jit_internal)
target_include_directories(triton_jit_fake_driver PUBLIC "${CMAKE_CURRENT_LIST_DIR}")
