#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "triton_jit/settings.h"

namespace triton_jit::detail {

// The explicit target packed as (warp_size << 16 | arch) for the hot path; 0 when none is set.
// Only the "cuda" backend is launched, so the backend needs no bits (a miss reads a hip target's
// backend from the setting itself, and its kernel refuses to launch). The hot path reads a
// constant-initialized atomic: no call, no guard of a function-local static. kTargetUnread
// until TRITON_JIT_TARGET has been read (the first call, or set_target).
inline constexpr uint32_t kTargetUnread = 0xffffffffu;
extern std::atomic<uint32_t> g_explicit_target_packed;
uint32_t explicit_target_packed_slow() noexcept;
inline uint32_t explicit_target_packed() noexcept {
  const uint32_t packed = g_explicit_target_packed.load(std::memory_order_acquire);
  return packed != kTargetUnread ? packed : explicit_target_packed_slow();
}

// The allocator in use (never null).
ScratchAllocator& scratch_allocator() noexcept;

// TRITON_JIT_PRELOAD's modules, then preload_modules()'s, in order, without repeats.
std::vector<std::string> preload_list();

bool log_enabled(LogLevel level) noexcept;
void log_line(const std::string& line);

}  // namespace triton_jit::detail
