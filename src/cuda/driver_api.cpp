#include "cuda/driver_api.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "cuda/device.h"
#include "cuda/hip_driver.h"
#include "triton_jit/errors.h"

namespace triton_jit::cuda {
namespace {

std::atomic<const DriverApi*> g_driver{nullptr};
std::atomic<const DriverApi*> g_fake{nullptr};

#define TRITON_JIT_STR2(x) #x
// Expands the macro first, so versioned names resolve to the ABI that cuda.h declares: cuMemAlloc ->
// cuMemAlloc_v2, cuMemFree -> cuMemFree_v2, cuMemcpyDtoDAsync -> cuMemcpyDtoDAsync_v2,
// cuEventDestroy -> cuEventDestroy_v2, cuEventElapsedTime -> cuEventElapsedTime_v2 (CUDA 12.8+
// headers); cuModuleLoadData, cuCtxGetCurrent, cuMemAllocAsync, cuEventCreate, cuEventRecord,
// cuEventSynchronize, cuMemsetD8Async, cuMemsetD32Async, cuStreamSynchronize and cuDeviceGetName
// keep their names (the _ptsz variants only under CUDA_API_PER_THREAD_DEFAULT_STREAM).
#define TRITON_JIT_STR(x) TRITON_JIT_STR2(x)

struct LoadedDriver {
  DriverApi api;
  const DriverApi* hip = nullptr;  // the HIP runtime's table, where libcuda is unusable and it is not
  std::string error;  // why it is unusable; empty when usable
  CUresult init_result = CUDA_SUCCESS;
};

template <typename Fn>
bool resolve(void* lib, const char* name, Fn* out, std::string* error) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*out == nullptr) {
    *error = std::string("libcuda has no symbol ") + name + "; the driver is older than CUDA 12";
    return false;
  }
  return true;
}

// cuEventElapsedTime_v2 came with the 12.8 driver; older 12.x drivers have only the first
// version, with the same signature and the same result for events recorded on one stream.
template <typename Fn>
bool resolve_elapsed_time(void* lib, Fn* out, std::string* error) {
  *out = reinterpret_cast<Fn>(dlsym(lib, TRITON_JIT_STR(cuEventElapsedTime)));
  if (*out == nullptr) *out = reinterpret_cast<Fn>(dlsym(lib, "cuEventElapsedTime"));
  if (*out == nullptr) {
    *error = "libcuda has no symbol cuEventElapsedTime; the driver is older than CUDA 12";
    return false;
  }
  return true;
}

const LoadedDriver& loaded_driver() {
  static const LoadedDriver loaded = [] {
    LoadedDriver d;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      d.error = std::string("no CUDA driver: libcuda.so.1 could not be loaded (") + (why ? why : "unknown") +
                "). Launching needs an NVIDIA GPU and its driver; compiling does not.";
      return d;
    }
    DriverApi& a = d.api;
    bool ok = resolve(lib, TRITON_JIT_STR(cuInit), &a.Init, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuGetErrorName), &a.GetErrorName, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuGetErrorString), &a.GetErrorString, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuDeviceGetCount), &a.DeviceGetCount, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuDeviceGet), &a.DeviceGet, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuDeviceGetAttribute), &a.DeviceGetAttribute, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuDevicePrimaryCtxRetain), &a.DevicePrimaryCtxRetain, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuCtxGetCurrent), &a.CtxGetCurrent, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuCtxSetCurrent), &a.CtxSetCurrent, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuCtxGetDevice), &a.CtxGetDevice, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuModuleLoadData), &a.ModuleLoadData, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuModuleUnload), &a.ModuleUnload, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuModuleGetFunction), &a.ModuleGetFunction, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuFuncGetAttribute), &a.FuncGetAttribute, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuFuncSetAttribute), &a.FuncSetAttribute, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuFuncSetCacheConfig), &a.FuncSetCacheConfig, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuLaunchKernel), &a.LaunchKernel, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuLaunchKernelEx), &a.LaunchKernelEx, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemAllocAsync), &a.MemAllocAsync, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemFreeAsync), &a.MemFreeAsync, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuStreamIsCapturing), &a.StreamIsCapturing, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuTensorMapEncodeTiled), &a.TensorMapEncodeTiled, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuDeviceGetName), &a.DeviceGetName, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuEventCreate), &a.EventCreate, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuEventRecord), &a.EventRecord, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuEventSynchronize), &a.EventSynchronize, &d.error) &&
              resolve_elapsed_time(lib, &a.EventElapsedTime, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuEventDestroy), &a.EventDestroy, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemAlloc), &a.MemAlloc, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemFree), &a.MemFree, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemsetD8Async), &a.MemsetD8Async, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemsetD32Async), &a.MemsetD32Async, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuMemcpyDtoDAsync), &a.MemcpyDtoDAsync, &d.error) &&
              resolve(lib, TRITON_JIT_STR(cuStreamSynchronize), &a.StreamSynchronize, &d.error);
    if (!ok) return d;
    d.init_result = a.Init(0);
    if (d.init_result != CUDA_SUCCESS) {
      const char* name = nullptr;
      const char* text = nullptr;
      a.GetErrorName(d.init_result, &name);
      a.GetErrorString(d.init_result, &text);
      d.error = std::string("the CUDA driver failed to initialize: cuInit returned ") + (name ? name : "?") + " (" +
                (text ? text : "?") + ")" +
                (d.init_result == CUDA_ERROR_NO_DEVICE ? "; this machine has no CUDA device" : "");
    }
    return d;
  }();
  return loaded;
}

// libcuda's table, else (no libcuda, or no NVIDIA device) the HIP runtime's, else why neither.
const LoadedDriver& loaded_any_driver() {
  static const LoadedDriver loaded = [] {
    LoadedDriver d = loaded_driver();
    if (d.error.empty()) return d;
    const char* env = std::getenv("TRITON_JIT_HIP_LIBRARY");
    const std::string library = env != nullptr && *env != '\0' ? env : kHipLibrary;
    std::string hip_error;
    d.hip = load_hip_driver(library, &hip_error);
    if (d.hip != nullptr) {
      d.error.clear();
      d.init_result = CUDA_SUCCESS;
      return d;
    }
    // One line for both: an AMD machine without ROCm reads the second half.
    if (!d.error.empty() && d.error.back() == '.') d.error.pop_back();
    d.error += "; nor is there an AMD GPU runtime: " + hip_error +
               " (set TRITON_JIT_HIP_LIBRARY to libamdhip64.so's path where ROCm is elsewhere)";
    return d;
  }();
  return loaded;
}

}  // namespace

const DriverApi& driver() {
  if (const DriverApi* fake = g_fake.load(std::memory_order_acquire)) return *fake;
  if (const DriverApi* d = g_driver.load(std::memory_order_acquire)) return *d;
  const LoadedDriver& loaded = loaded_any_driver();
  if (!loaded.error.empty()) {
    throw NoDeviceError(loaded.error, static_cast<int>(loaded.init_result));
  }
  const DriverApi* table = loaded.hip != nullptr ? loaded.hip : &loaded.api;
  g_driver.store(table, std::memory_order_release);
  return *table;
}

bool driver_available() {
  if (g_fake.load(std::memory_order_acquire) != nullptr) return true;
  return loaded_any_driver().error.empty();
}

void set_driver_for_testing(const DriverApi* api) {
  g_fake.store(api, std::memory_order_release);
  reset_device_cache();  // devices read through the previous table are not this one's
}

const char* error_name(CUresult result) {
  const char* s = nullptr;
  if (driver_available()) driver().GetErrorName(result, &s);
  return s ? s : "CUDA_ERROR_UNKNOWN";
}

const char* error_string(CUresult result) {
  const char* s = nullptr;
  if (driver_available()) driver().GetErrorString(result, &s);
  return s ? s : "unknown CUDA error";
}

void throw_cuda_error(CUresult result, const char* call, const char* context) {
  std::string message = std::string(call) + " failed with " + error_name(result) + " (" + error_string(result) + ")";
  if (context != nullptr && *context) message += std::string(": ") + context;
  if (result == CUDA_ERROR_NO_DEVICE || result == CUDA_ERROR_NOT_INITIALIZED) {
    throw NoDeviceError(message, static_cast<int>(result));
  }
  throw CudaError(message, static_cast<int>(result));
}

bool stream_is_capturing(CUstream stream) {
  const DriverApi& d = driver();
  if (d.StreamIsCapturing == nullptr) return false;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // An invalidated capture still counts: launching into it must not compile either.
  return d.StreamIsCapturing(stream, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace triton_jit::cuda
