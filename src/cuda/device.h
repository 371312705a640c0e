#pragma once

#include <cuda.h>

#include <string>

#include "triton_jit/target.h"

namespace triton_jit::cuda {

inline constexpr int kMaxDevices = 64;

// What a launch needs to know of a device, read once per device.
struct DeviceInfo {
  int ordinal = 0;
  int arch = 0;  // compute capability as major * 10 + minor; on an AMD device the gfx number (0x942)
  bool hip = false;    // an AMD device, launched through the HIP runtime (cuda/hip_driver.h)
  int warp_size = 32;  // 64 on AMD's gfx9 (CDNA), as the HIP runtime reports it
  int max_grid[3] = {0, 0, 0};
  int max_shared_optin = 0;  // bytes a block may opt in to
  int max_shared_per_sm = 0;
  int multiprocessors = 0;
};

struct CurrentDevice {
  CUcontext context = nullptr;
  const DeviceInfo* info = nullptr;
};

// The current context and its device. With no current context, device 0's primary context is
// made current, as the CUDA runtime does. Hot path: one driver call and a thread-local compare.
CurrentDevice current_device();

// Device `ordinal`'s attributes (read on first use).
const DeviceInfo& device_info(int ordinal);

// Device `ordinal`'s name as the driver gives it ("NVIDIA H100 80GB HBM3"), the key of the tables
// kept per device; "device<ordinal>" where the driver cannot say (no such device, no driver), or
// `fallback` when given.
std::string device_name_of(int ordinal, const char* fallback = nullptr);

// The target kernels for `device` compile for: cuda:ARCH, or hip:gfxARCH with its warp size.
Target device_target(const DeviceInfo& device);

// The device as errors name it: "sm_90", "hip:gfx942".
std::string device_arch_name(const DeviceInfo& device);

// Forgets cached devices; used when a test installs another driver table.
void reset_device_cache();

}  // namespace triton_jit::cuda
