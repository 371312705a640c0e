#pragma once
// The runtime's side of triton_jit/pack.h (defined in pack.cpp).

namespace triton_jit::detail {

// Loads the packs named in TRITON_JIT_PACKS, once; a pack that fails is reported and skipped.
void load_environment_packs();

}  // namespace triton_jit::detail
