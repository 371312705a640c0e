// Applies TRITON_JIT_TEST_ENV (tests/CMakeLists.txt) before main, so every test process, under
// ctest or run by hand, compiles into the build's own Triton cache with the configured Python.
// It is compiled in rather than passed as CTest's ENVIRONMENT because gtest_discover_tests
// (CMake 3.25) flattens list-valued properties: only the first variable would arrive.
#include <cstdlib>
#include <string>

#include "test_env_entries.h"

namespace {

bool apply_test_env() {
  for (const char* const* e = kTestEnv; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
  }
  return true;
}

[[maybe_unused]] const bool g_applied = apply_test_env();

}  // namespace
