// main() of the CPU tests. Sets TRITON_JIT_TEST_ENV (the Triton cache of the build tree, the
// Python to embed) before any test starts Python, overriding the environment as CTest's
// ENVIRONMENT property would. It is done here because gtest_discover_tests (CMake 3.25) cannot
// pass a list through PROPERTIES ENVIRONMENT (only its first element arrives), and so that the
// executables behave the same when run alone from a shell.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#ifndef TRITON_JIT_TEST_ENV_ENTRIES
#define TRITON_JIT_TEST_ENV_ENTRIES
#endif

int main(int argc, char** argv) {
  const char* entries[] = {TRITON_JIT_TEST_ENV_ENTRIES nullptr};
  for (const char* const* e = entries; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    setenv(entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str(), /*overwrite=*/1);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
