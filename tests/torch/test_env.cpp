// Applies TRITON_JIT_TEST_ENV (see CMakeLists.txt) before main, so every test process, under
// ctest or run by hand, compiles into the build's own Triton cache with the configured Python.
#include <cstdlib>
#include <string>

#include "torch_test_env.h"

namespace {

bool apply_test_env() {
  for (const char* const* e = kTorchTestEnv; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
  }
  return true;
}

[[maybe_unused]] const bool g_applied = apply_test_env();

}  // namespace
