// The public device helpers (triton_jit/device.h): a thin layer over the driver table.
#include <cuda.h>

#include <string>
#include <utility>

#include "cuda/device.h"
#include "cuda/device_memory.h"
#include "cuda/driver_api.h"
#include "triton_jit/device.h"

namespace triton_jit {

std::string device_name() {
  const cuda::CurrentDevice current = cuda::current_device();
  const cuda::DriverApi& d = cuda::driver();
  CUdevice device = 0;
  CUresult r = d.DeviceGet(&device, current.info->ordinal);
  if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuDeviceGet", "reading the device's name");
  char name[256] = {};
  r = d.DeviceGetName(name, sizeof name, device);
  if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuDeviceGetName", "reading the device's name");
  return name;
}

void synchronize(CUstream_st* stream) {
  cuda::current_device();
  const CUresult r = cuda::driver().StreamSynchronize(stream);
  if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuStreamSynchronize", "waiting for the stream");
}

DeviceMemory::DeviceMemory() = default;
DeviceMemory::~DeviceMemory() = default;
DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept = default;
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept = default;

DeviceMemory::DeviceMemory(uint64_t bytes) {
  if (bytes == 0) return;
  cuda::current_device();
  buffer_ = std::make_unique<detail::DeviceBuffer>(bytes);
  detail::zero_async(nullptr, buffer_->address(), bytes);
  synchronize(nullptr);
}

uint64_t DeviceMemory::address() const noexcept { return buffer_ ? buffer_->address() : 0; }
uint64_t DeviceMemory::bytes() const noexcept { return buffer_ ? buffer_->bytes() : 0; }

}  // namespace triton_jit
