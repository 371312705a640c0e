#pragma once

#include <cuda.h>

#include "cuda/device.h"
#include "kernel_cache.h"
#include "spec_key.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// Packs the call's runtime arguments (and scratch pointers) into a stack buffer and launches.
// `args` holds every parameter, defaults filled in. Allocates nothing unless the kernel needs
// scratch memory, which comes from the scratch allocator.
void launch_kernel(const KernelEntry& entry, CUfunction function, const LaunchConfig& config, const SpecKey& key,
                   const ArgValue* args, const cuda::DeviceInfo& device, const char* function_name);

}  // namespace triton_jit::detail
