#pragma once

#include <atomic>
#include <cstdint>

namespace triton_jit::detail {

// Hit counting on the hot path without a locked instruction: a locked add right after the
// driver's launch must wait for the driver's stores to drain (measured on an H200: ~40 ns a
// launch). Each thread increments only its own counters (one writer: a plain load and store
// stay exact), and a function's total is the sum over threads, exited ones included.
inline constexpr int kCounterSlots = 256;

struct ThreadCounters {
  std::atomic<uint64_t> hits[kCounterSlots] = {};
};

// This thread's counters, registered for summing on first use and folded into the totals when
// the thread exits.
class ThreadCounterBlock {
 public:
  ThreadCounterBlock();
  ~ThreadCounterBlock();
  ThreadCounters counters;
};

inline ThreadCounters& thread_counters() {
  thread_local ThreadCounterBlock block;
  return block.counters;
}

// A counter slot for a new function; -1 once all are taken (that function counts with an atomic add).
int allocate_counter_slot();

// The hits counted in `slot` by every thread, live or exited.
uint64_t sum_hits(int slot);

inline void count_hit(int slot, std::atomic<uint64_t>& fallback) {
  if (slot >= 0) {
    std::atomic<uint64_t>& c = thread_counters().hits[slot];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {
    fallback.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace triton_jit::detail
