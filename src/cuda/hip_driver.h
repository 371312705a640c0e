#pragma once
// The HIP runtime (libamdhip64) behind the runtime's driver table: hipModuleLoadData,
// hipModuleGetFunction and hipModuleLaunchKernel have the shapes of their cu* counterparts, and
// HIP's error codes the values of CUDA's (hipErrorNoDevice = CUDA_ERROR_NO_DEVICE = 100,
// hipErrorInvalidImage = 200, hipErrorNoBinaryForGpu = 209, ...), so a table of adapters lets the
// one launch path (launch/launcher.cpp) launch on AMD GPUs without a branch. Loaded with dlopen:
// no link-time dependency, no HIP headers.

#include <string>

#include "cuda/driver_api.h"

namespace triton_jit::cuda {

// The default library name; TRITON_JIT_HIP_LIBRARY names another file.
inline constexpr const char* kHipLibrary = "libamdhip64.so";

// Loads the HIP runtime at `library` (a file name dlopen searches, or a path) and returns its
// adapter table, alive for the process; nullptr with `*error` set when the library or one of its
// symbols is missing or hipInit fails. The same path returns the same table.
const DriverApi* load_hip_driver(const std::string& library, std::string* error);

// The gfx processor in a HIP device name as the runtime reports it ("gfx942:sramecc+:xnack-") as
// Target::arch holds it (0x942); -1 when it names no gfx processor.
int parse_gfx_arch(const char* gcn_arch_name);

}  // namespace triton_jit::cuda
