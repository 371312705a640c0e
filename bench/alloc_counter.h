#pragma once

#include <cstdint>

// Counts calls of the global operator new (every form) made by the calling thread. The
// definitions (alloc_counter.cpp) replace the global allocation functions of the whole program,
// so they must be linked into the executable itself.
namespace triton_jit_bench {
uint64_t thread_allocations() noexcept;
}
