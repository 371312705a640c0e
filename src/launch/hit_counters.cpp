#include "launch/hit_counters.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace triton_jit::detail {
namespace {

// Leaked on purpose: threads may exit during static destruction.
struct Registry {
  std::mutex mutex;
  std::vector<const ThreadCounters*> live;
  std::atomic<uint64_t> exited[kCounterSlots] = {};
  std::atomic<int> next_slot{0};
};

Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

ThreadCounterBlock::ThreadCounterBlock() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.live.push_back(&counters);
}

ThreadCounterBlock::~ThreadCounterBlock() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (int i = 0; i < kCounterSlots; ++i) {
    r.exited[i].fetch_add(counters.hits[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
  r.live.erase(std::find(r.live.begin(), r.live.end(), &counters));
}

int allocate_counter_slot() {
  const int slot = registry().next_slot.fetch_add(1, std::memory_order_relaxed);
  return slot < kCounterSlots ? slot : -1;
}

uint64_t sum_hits(int slot) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  uint64_t total = r.exited[slot].load(std::memory_order_relaxed);
  for (const ThreadCounters* c : r.live) total += c->hits[slot].load(std::memory_order_relaxed);
  return total;
}

}  // namespace triton_jit::detail
