// Applies TRITON_JIT_TEST_ENV (tests/CMakeLists.txt) before main, so every test process, under
// ctest or run by hand, compiles into the build's own Triton cache with the configured Python.
// It is compiled in rather than passed as CTest's ENVIRONMENT because gtest_discover_tests
// (CMake 3.25) flattens list-valued properties: only the first variable would arrive.
//
// TRITON_JIT_TEST_ENV_DEFAULTS (TRITON_JIT_PYTHON) applies only where the environment has no
// value: a run against another Triton sets TRITON_JIT_PYTHON to that python.
// TRITON_JIT_TEST_CACHE_ROOT, when set, moves the two caches below it (keeping their folder names).
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

bool is_cache_dir(const std::string& name) { return name == "TRITON_CACHE_DIR" || name == "TRITON_JIT_INDEX_DIR"; }

// A cache folder below TRITON_JIT_TEST_CACHE_ROOT when it is set: ROOT/<the folder's own name>.
std::string relocated(const std::string& dir) {
  const char* root = std::getenv("TRITON_JIT_TEST_CACHE_ROOT");
  if (root == nullptr || *root == 0) return dir;
  const size_t slash = dir.find_last_of('/');
  return std::string(root) + "/" + (slash == std::string::npos ? dir : dir.substr(slash + 1));
}

bool apply_test_env() {
  for (const char* const* e = kTestEnv; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    std::string value = entry.substr(eq + 1);
    if (is_cache_dir(name)) value = relocated(value);
    if (name == "TRITON_JIT_INDEX_DIR") {
      if (std::getenv("TRITON_JIT_TEST_KEEP_INDEX_DIR") != nullptr) continue;  // a test's child process
      value += "/process-" + std::to_string(::getpid());
      std::snprintf(g_process_cache_dir, sizeof g_process_cache_dir, "%s", value.c_str());
      std::atexit(remove_process_cache_dir);
    }
    setenv(name.c_str(), value.c_str(), 1);
  }
  for (const char* const* e = kTestEnvDefaults; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = entry.substr(0, eq);
    if (const char* set = std::getenv(name.c_str()); set != nullptr && *set != 0) continue;
    setenv(name.c_str(), entry.c_str() + eq + 1, 1);
  }
  return true;
}

[[maybe_unused]] const bool g_applied = apply_test_env();

}  // namespace
