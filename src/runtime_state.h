#pragma once

#include <cstdint>
#include <string>

#include "triton_jit/runtime.h"

namespace triton_jit::detail {

// The explicit target packed as (warp_size << 16 | arch) for the hot path; 0 when none is set.
// Only the "cuda" backend is launched, so the backend needs no bits.
uint32_t explicit_target_packed() noexcept;

// The allocator in use (never null).
ScratchAllocator& scratch_allocator() noexcept;

bool log_enabled(LogLevel level) noexcept;
void log_line(const std::string& line);

}  // namespace triton_jit::detail
