// Applies TRITON_JIT_TEST_ENV (tests/CMakeLists.txt) before main, so every test process, under
// ctest or run by hand, compiles into the build's own Triton cache with the configured Python.
// It is compiled in rather than passed as CTest's ENVIRONMENT because gtest_discover_tests
// (CMake 3.25) flattens list-valued properties: only the first variable would arrive.
//
// The kernel index gets a directory per process (removed at exit): a test that counts compiles
// must not find kernels another test process stored.
#include <ftw.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_env_entries.h"

namespace {

// Plain storage and POSIX calls only: the handler runs at exit, after libraries (libtorch) may
// have torn down C++ state the standard library's filesystem code would touch.
char g_process_cache_dir[4096] = {0};

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

void remove_process_cache_dir() {
  if (g_process_cache_dir[0] != 0) ::nftw(g_process_cache_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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
      std::snprintf(g_process_cache_dir, sizeof g_process_cache_dir, "%s", value.c_str());
      std::atexit(remove_process_cache_dir);
    }
    setenv(name.c_str(), value.c_str(), 1);
  }
  return true;
}

[[maybe_unused]] const bool g_applied = apply_test_env();

}  // namespace
