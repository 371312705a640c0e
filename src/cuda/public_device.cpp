// The public device helpers (triton_jit/device.h): a thin layer over the driver table.
#include <cuda.h>

#include <string>
#include <utility>

#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "decorators/device_memory.h"
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

DeviceMemory::DeviceMemory(uint64_t bytes) {
  if (bytes == 0) return;
  cuda::current_device();
  CUdeviceptr p = 0;
  const CUresult r = cuda::driver().MemAlloc(&p, static_cast<size_t>(bytes));
  if (r != CUDA_SUCCESS) {
    cuda::throw_cuda_error(r, "cuMemAlloc", ("allocating " + std::to_string(bytes) + " bytes").c_str());
  }
  address_ = static_cast<uint64_t>(p);
  bytes_ = bytes;
  try {
    detail::zero_async(nullptr, address_, bytes_);
    synchronize(nullptr);
  } catch (...) {
    release();
    throw;
  }
}

DeviceMemory::~DeviceMemory() { release(); }

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : address_(std::exchange(other.address_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    release();
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceMemory::release() noexcept {
  if (address_ == 0) return;
  try {
    cuda::driver().MemFree(static_cast<CUdeviceptr>(address_));
  } catch (...) {  // no driver any more: nothing to free
  }
  address_ = 0;
  bytes_ = 0;
}

}  // namespace triton_jit
