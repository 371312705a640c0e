#pragma once

#include <cuda.h>

namespace triton_jit::cuda {

// The driver entry points the runtime uses, resolved from libcuda at run time so the library
// loads on machines without a driver. Tests install a fake table to run launches on the CPU.
struct DriverApi {
  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
  decltype(&::cuGetErrorString) GetErrorString = nullptr;
  decltype(&::cuDeviceGetCount) DeviceGetCount = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
  decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuCtxGetDevice) CtxGetDevice = nullptr;
  decltype(&::cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&::cuModuleUnload) ModuleUnload = nullptr;
  decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&::cuFuncGetAttribute) FuncGetAttribute = nullptr;
  decltype(&::cuFuncSetAttribute) FuncSetAttribute = nullptr;
  decltype(&::cuFuncSetCacheConfig) FuncSetCacheConfig = nullptr;
  decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&::cuLaunchKernelEx) LaunchKernelEx = nullptr;
  decltype(&::cuMemAllocAsync) MemAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) MemFreeAsync = nullptr;
  decltype(&::cuStreamIsCapturing) StreamIsCapturing = nullptr;        // may stay null in fakes
  decltype(&::cuTensorMapEncodeTiled) TensorMapEncodeTiled = nullptr;  // host tensor descriptors
  // Benchmarking (autotune): events, device memory, stream-ordered memset/copy.
  decltype(&::cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&::cuEventCreate) EventCreate = nullptr;
  decltype(&::cuEventRecord) EventRecord = nullptr;
  decltype(&::cuEventSynchronize) EventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) EventElapsedTime = nullptr;  // _v2 where the driver has it, else v1
  decltype(&::cuEventDestroy) EventDestroy = nullptr;
  decltype(&::cuMemAlloc) MemAlloc = nullptr;
  decltype(&::cuMemFree) MemFree = nullptr;
  decltype(&::cuMemsetD8Async) MemsetD8Async = nullptr;
  decltype(&::cuMemsetD32Async) MemsetD32Async = nullptr;
  decltype(&::cuMemcpyDtoDAsync) MemcpyDtoDAsync = nullptr;
  decltype(&::cuStreamSynchronize) StreamSynchronize = nullptr;
  // Set by the HIP table only (cuda/hip_driver.h): the device's gfx processor as Target::arch
  // holds it (0x942). Its presence makes the devices AMD ones: HIP targets, warp size read.
  CUresult (*DeviceGetGfxArch)(int* arch, CUdevice device) = nullptr;
};

// The table in use: the installed fake, else libcuda's (loaded and cuInit-ed once), else, where
// libcuda is missing or finds no device, the HIP runtime's (libamdhip64.so, or the file
// TRITON_JIT_HIP_LIBRARY names). Throws NoDeviceError, in one line naming both, when neither is usable.
const DriverApi& driver();

// True when a driver table is available without throwing (libcuda present and cuInit succeeded,
// or a fake installed).
bool driver_available();

// Installs a fake table (nullptr removes it). For tests and benchmarks only; the table must
// outlive its use.
void set_driver_for_testing(const DriverApi* api);

// True when `stream` is being captured into a CUDA graph (miss path only: one driver call).
bool stream_is_capturing(CUstream stream);

// "CUDA_ERROR_X (description)" for a result code.
const char* error_name(CUresult result);
const char* error_string(CUresult result);

// Throws CudaError naming the call, the result and what it means. Cold.
[[noreturn]] void throw_cuda_error(CUresult result, const char* call, const char* context);

}  // namespace triton_jit::cuda
