// The names the API had before the reshaping (CHANGELOG.md) still compile, through runtime.h and
// cache.h, with deprecation warnings only.
#include "triton_jit/cache.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/runtime.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

void old_names(const triton_jit::TritonJitFunction& fn) {
  triton_jit::set_cache_dir(std::nullopt);
  const std::string dir = triton_jit::cache_dir();
  const std::vector<triton_jit::CacheEntry> entries = triton_jit::list_cache();
  (void)triton_jit::prune_cache(1.0);
  triton_jit::CacheStats stats = fn.stats();
  (void)fn.compile_signature("*fp32:16,i32", 4, 3, 1, triton_jit::Target{});
  (void)dir;
  (void)entries;
  (void)stats;
}
