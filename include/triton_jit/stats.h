#pragma once

#include <cstdint>

#include "triton_jit/export.h"

namespace triton_jit {

// Counters of one function (TritonJitFunction::stats), or of all functions together.
struct Stats {
  uint64_t hits = 0;                    // launches and compiles served from the in-memory table
  uint64_t misses = 0;                  // calls that found no kernel for their key in memory
  uint64_t compiles = 0;                // triton.compile runs
  uint64_t loads = 0;                   // modules loaded into a CUDA context
  uint64_t index_hits = 0;              // misses served from the persistent index (no compile)
  uint64_t pack_hits = 0;               // misses served from a loaded kernel pack (no compile)
  uint64_t tunings = 0;                 // autotuning runs (a tuning key with no choice in memory or the index)
  uint64_t heuristic_python_calls = 0;  // heuristics run through Python (no program, no memo)
  uint64_t python_wrapper_calls = 0;    // calls run through a wrapper's own run in Python (not emulated)
};
using CacheStats [[deprecated("use triton_jit::Stats")]] = Stats;

TRITON_JIT_API Stats global_stats();

}  // namespace triton_jit
