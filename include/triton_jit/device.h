#pragma once
// The current device, for tools and tests that run kernels without torch or the CUDA runtime
// (triton-jit tune uses these). Each call makes device 0's primary context current when the
// calling thread has no context, as a launch does, and throws NoDeviceError when there is no
// driver or no GPU, CudaError when a driver call fails.

#include <cstdint>
#include <memory>
#include <string>

#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {

namespace detail {
class DeviceBuffer;
}  // namespace detail

// The current device's name, e.g. "NVIDIA H100 80GB HBM3".
TRITON_JIT_API std::string device_name();

// Waits until the work queued on `stream` (nullptr: the legacy default stream) has finished.
TRITON_JIT_API void synchronize(CUstream_st* stream = nullptr);

// Device memory on the current device (cuMemAlloc), zeroed before the constructor returns, freed
// by the destructor. Movable. Pass it as TypedPtr{mem.data(), dtype, mem.bytes()} so that an
// autotuner's reset_to_zero and restore_value know its size.
class TRITON_JIT_API DeviceMemory {
 public:
  DeviceMemory();
  // 0 bytes allocates nothing (data() is nullptr).
  explicit DeviceMemory(uint64_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* data() const noexcept { return reinterpret_cast<void*>(static_cast<uintptr_t>(address())); }
  uint64_t address() const noexcept;
  uint64_t bytes() const noexcept;

 private:
  std::unique_ptr<detail::DeviceBuffer> buffer_;  // the library's own allocation, as tuning uses
};

}  // namespace triton_jit
