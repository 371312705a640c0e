#pragma once

#include "triton_jit/settings.h"

namespace triton_jit::detail {

// The allocator in use (never null).
ScratchAllocator& scratch_allocator() noexcept;

}  // namespace triton_jit::detail
