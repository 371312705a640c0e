#pragma once
// A launch with launch hooks (triton_jit/launch_hooks.h) around it: the cold twin of
// launch_kernel, taken when the hook word is set.

#include "launch/function_state.h"
#include "launch/launcher.h"
#include "settings/launch_hooks.h"

namespace triton_jit::detail {

// The registered C++ enter hooks, Triton's Python enter hook (when the Python bit is set), the
// launch, then the exit hooks in the reverse order. `args`: the complete call.
[[gnu::cold, gnu::noinline]] void launch_with_hooks(FunctionState& m, const KernelEntry& entry, CUfunction function,
                                                    const LaunchConfig& config, PackedParams& packed,
                                                    const cuda::DeviceInfo& device, const ArgValue* args);

}  // namespace triton_jit::detail
