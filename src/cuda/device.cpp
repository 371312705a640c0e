#include "cuda/device.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/driver_api.h"
#include "triton_jit/errors.h"

namespace triton_jit::cuda {
namespace {

std::atomic<const DeviceInfo*> g_devices[kMaxDevices];
std::atomic<unsigned> g_generation{0};
std::mutex g_device_mutex;
// Devices forgotten by reset_device_cache, still alive: a thread's cache or a launch in flight may
// point at one. Only a swap of the driver table retires devices (tests), so this stays small.
std::vector<std::unique_ptr<const DeviceInfo>>& retired_devices() {
  static auto* retired = new std::vector<std::unique_ptr<const DeviceInfo>>();
  return *retired;
}

struct ThreadCache {
  CUcontext context = nullptr;
  const DeviceInfo* info = nullptr;
  unsigned generation = ~0u;
};
thread_local ThreadCache t_cache;

int attribute(const DriverApi& d, CUdevice_attribute attr, CUdevice dev) {
  int value = 0;
  CUresult r = d.DeviceGetAttribute(&value, attr, dev);
  if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuDeviceGetAttribute", "reading device attributes");
  return value;
}

[[gnu::noinline]] CurrentDevice resolve_slow(CUcontext ctx) {
  const DriverApi& d = driver();
  if (ctx == nullptr) {
    int count = 0;
    CUresult r = d.DeviceGetCount(&count);
    if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuDeviceGetCount", "looking for a CUDA device");
    if (count == 0) throw NoDeviceError("no CUDA device is present; launching needs a GPU", CUDA_ERROR_NO_DEVICE);
    CUdevice dev = 0;
    r = d.DeviceGet(&dev, 0);
    if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuDeviceGet", "device 0");
    r = d.DevicePrimaryCtxRetain(&ctx, dev);
    if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuDevicePrimaryCtxRetain", "device 0");
    r = d.CtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuCtxSetCurrent", "device 0's primary context");
  }
  CUdevice dev = 0;
  CUresult r = d.CtxGetDevice(&dev);
  if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuCtxGetDevice", "the current context");
  const DeviceInfo& info = device_info(static_cast<int>(dev));
  t_cache = ThreadCache{ctx, &info, g_generation.load(std::memory_order_acquire)};
  return CurrentDevice{ctx, &info};
}

}  // namespace

const DeviceInfo& device_info(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxDevices) {
    throw CudaError("device ordinal " + std::to_string(ordinal) + " is out of range (at most " +
                        std::to_string(kMaxDevices) + " devices are supported)",
                    CUDA_ERROR_INVALID_DEVICE);
  }
  if (const DeviceInfo* info = g_devices[ordinal].load(std::memory_order_acquire)) return *info;
  std::lock_guard<std::mutex> lock(g_device_mutex);
  if (const DeviceInfo* info = g_devices[ordinal].load(std::memory_order_acquire)) return *info;
  const DriverApi& d = driver();
  CUdevice dev = 0;
  CUresult r = d.DeviceGet(&dev, ordinal);
  if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuDeviceGet", ("device " + std::to_string(ordinal)).c_str());
  auto* info = new DeviceInfo;  // lives as long as the process: launches keep pointers to it
  info->ordinal = ordinal;
  if (d.DeviceGetGfxArch != nullptr) {
    // An AMD device: its target is its gfx processor (gcnArchName), as Triton's AMD driver reads it.
    info->hip = true;
    r = d.DeviceGetGfxArch(&info->arch, dev);
    if (r != CUDA_SUCCESS) throw_cuda_error(r, "hipGetDeviceProperties", ("device " + std::to_string(ordinal)).c_str());
    if (info->arch <= 0) {
      throw CudaError("device " + std::to_string(ordinal) + ": the HIP runtime reports no gfx processor for it",
                      CUDA_ERROR_INVALID_DEVICE);
    }
    info->warp_size = attribute(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
  } else {
    info->arch = attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) * 10 +
                 attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  }
  info->max_grid[0] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, dev);
  info->max_grid[1] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, dev);
  info->max_grid[2] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, dev);
  info->max_shared_optin = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  info->max_shared_per_sm = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev);
  info->multiprocessors = attribute(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  g_devices[ordinal].store(info, std::memory_order_release);
  return *info;
}

CurrentDevice current_device() {
  const DriverApi& d = driver();
  CUcontext ctx = nullptr;
  CUresult r = d.CtxGetCurrent(&ctx);
  if (r != CUDA_SUCCESS) throw_cuda_error(r, "cuCtxGetCurrent", "finding the current device");
  const ThreadCache& c = t_cache;
  if (ctx != nullptr && ctx == c.context && c.generation == g_generation.load(std::memory_order_relaxed)) {
    return CurrentDevice{ctx, c.info};
  }
  return resolve_slow(ctx);
}

void reset_device_cache() {
  std::lock_guard<std::mutex> lock(g_device_mutex);
  for (auto& slot : g_devices) {
    if (const DeviceInfo* info = slot.exchange(nullptr, std::memory_order_acq_rel)) {
      retired_devices().emplace_back(info);
    }
  }
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

Target device_target(const DeviceInfo& device) {
  return Target{device.hip ? "hip" : "cuda", device.arch, device.warp_size};
}

std::string device_arch_name(const DeviceInfo& device) {
  return device.hip ? device_target(device).str() : "sm_" + std::to_string(device.arch);
}

std::string device_name_of(int ordinal, const char* fallback) {
  const DriverApi& d = driver();
  CUdevice device;
  char name[256] = {};
  if (d.DeviceGet(&device, ordinal) != CUDA_SUCCESS || d.DeviceGetName(name, sizeof name, device) != CUDA_SUCCESS) {
    return fallback != nullptr ? std::string(fallback) : "device" + std::to_string(ordinal);
  }
  return name;
}

}  // namespace triton_jit::cuda
