// Applies TRITON_JIT_TEST_ENV (tests/CMakeLists.txt) before main, so every test process, under
// ctest or run by hand, compiles into the build's own Triton cache with the configured Python.
// It is compiled in rather than passed as CTest's ENVIRONMENT because gtest_discover_tests
// (CMake 3.25) flattens list-valued properties: only the first variable would arrive.
//
// The kernel index gets a directory per process (removed at exit): a test that counts compiles
// must not find kernels another test process stored.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_env_entries.h"

namespace {

std::string& process_cache_dir() {
  static std::string dir;
  return dir;
}

void remove_process_cache_dir() {
  std::error_code ec;
  if (!process_cache_dir().empty()) std::filesystem::remove_all(process_cache_dir(), ec);
}

bool apply_test_env() {
  for (const char* const* e = kTestEnv; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    std::string value = entry.substr(eq + 1);
    if (name == "TRITON_JIT_CACHE_DIR") {
      if (std::getenv("TRITON_JIT_TEST_KEEP_CACHE_DIR") != nullptr) continue;  // a test's child process
      value += "/process-" + std::to_string(::getpid());
      process_cache_dir() = value;
      std::atexit(remove_process_cache_dir);
    }
    setenv(name.c_str(), value.c_str(), 1);
  }
  return true;
}

[[maybe_unused]] const bool g_applied = apply_test_env();

}  // namespace
