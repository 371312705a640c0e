#pragma once

#include <cuda.h>

#include <string>

namespace triton_jit::cuda {

inline constexpr int kMaxDevices = 64;

// What a launch needs to know of a device, read once per device.
struct DeviceInfo {
  int ordinal = 0;
  int arch = 0;  // compute capability as major * 10 + minor
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

// Forgets cached devices; used when a test installs another driver table.
void reset_device_cache();

}  // namespace triton_jit::cuda
