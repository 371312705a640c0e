// The compile-worker limit (settings.h): the setting, else TRITON_JIT_COMPILE_WORKERS, else one per
// core up to a cap (each worker is a Python process holding Triton, about 130 MB resident).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "triton_jit/settings.h"

namespace triton_jit {
namespace {

int default_workers() {
  if (const char* env = std::getenv("TRITON_JIT_COMPILE_WORKERS"); env && *env) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n >= 0 && n <= 4096) return static_cast<int>(n);
    std::fprintf(stderr,
                 "[triton_jit] warning: ignoring TRITON_JIT_COMPILE_WORKERS=%s: expected a number of processes from 0 "
                 "(compile in this process only) to 4096\n",
                 env);
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(cores), 1, kMaxDefaultCompileWorkers);
}

constexpr int kUnset = -1;
std::atomic<int> g_workers{kUnset};

}  // namespace

void set_compile_workers(int workers) { g_workers.store(workers < 0 ? kUnset : workers); }

int compile_workers() {
  const int n = g_workers.load();
  if (n != kUnset) return n;
  static const int from_env = default_workers();  // the environment is read once
  return from_env;
}

}  // namespace triton_jit
