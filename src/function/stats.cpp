#include "triton_jit/stats.h"

#include "function/registry.h"

namespace triton_jit {

Stats global_stats() {
  Stats total;
  detail::for_each_function([&](const TritonJitFunction& fn) {
    const Stats s = fn.stats();
    total.hits += s.hits;
    total.misses += s.misses;
    total.compiles += s.compiles;
    total.loads += s.loads;
    total.index_hits += s.index_hits;
    total.pack_hits += s.pack_hits;
    total.tunings += s.tunings;
    total.heuristic_python_calls += s.heuristic_python_calls;
    total.python_wrapper_calls += s.python_wrapper_calls;
  });
  return total;
}

}  // namespace triton_jit
