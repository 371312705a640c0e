#pragma once
// Whether a target's keys carry Triton's HIP 'S' flag (a pointer in a buffer of at most 2^31 - 1
// bytes): asked of the installed Triton once per target. Only specialization, compiles and the
// miss path ask; a CUDA target answers false without a lookup.

#include <string>

#include "triton_jit/target.h"

namespace triton_jit::detail {

// False for every non-HIP target. For a HIP one: checks the target against the processors the
// installed Triton's AMD backend builds (ArgumentError naming both otherwise) and returns its
// knobs.amd.use_buffer_ops. Offline, where no Triton is asked, AMDGCN_USE_BUFFER_OPS decides, on
// by default as in Triton 3.6 and newer.
// `function` names the kernel in the message.
bool pointer_ranges_for(const Target& target, const std::string& function);

}  // namespace triton_jit::detail
