#include "fake_driver.h"

#include <cstdio>
#include <cstring>

namespace triton_jit_bench {
namespace {

// Distinct non-null handles; the runtime only compares and passes them along.
alignas(64) char g_context_storage[64];
alignas(64) char g_module_storage[64];
alignas(64) char g_function_storage[64];
CUcontext const kContext = reinterpret_cast<CUcontext>(g_context_storage);
CUmodule const kModule = reinterpret_cast<CUmodule>(g_module_storage);
CUfunction const kFunction = reinterpret_cast<CUfunction>(g_function_storage);

CUresult CUDAAPI Init(unsigned) { return CUDA_SUCCESS; }
CUresult CUDAAPI GetErrorName(CUresult, const char** s) {
  *s = "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI GetErrorString(CUresult, const char** s) {
  *s = "error from the benchmark's fake driver";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI DeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI DeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI DeviceGetAttribute(int* v, CUdevice_attribute attr, CUdevice) {
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 233472; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI DevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = kContext;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI CtxGetCurrent(CUcontext* c) {
  *c = kContext;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI CtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult CUDAAPI CtxGetDevice(CUdevice* d) {
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI ModuleLoadData(CUmodule* m, const void*) {
  *m = kModule;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI ModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult CUDAAPI ModuleGetFunction(CUfunction* f, CUmodule, const char*) {
  *f = kFunction;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI FuncGetAttribute(int* v, CUfunction_attribute, CUfunction) {
  *v = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI FuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult CUDAAPI FuncSetCacheConfig(CUfunction, CUfunc_cache) { return CUDA_SUCCESS; }
CUresult CUDAAPI LaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI LaunchKernelEx(const CUlaunchConfig*, CUfunction, void**, void**) { return CUDA_SUCCESS; }
alignas(256) char g_scratch[1 << 16];
CUresult CUDAAPI MemAllocAsync(CUdeviceptr* p, size_t, CUstream) {
  *p = reinterpret_cast<CUdeviceptr>(g_scratch);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI MemFreeAsync(CUdeviceptr, CUstream) { return CUDA_SUCCESS; }

CUresult CUDAAPI DeviceGetName(char* name, int len, CUdevice) {
  std::snprintf(name, static_cast<size_t>(len), "%s", "fake bench device");
  return CUDA_SUCCESS;
}

triton_jit::cuda::DriverApi make_table() {
  triton_jit::cuda::DriverApi d;
  d.Init = Init;
  d.GetErrorName = GetErrorName;
  d.GetErrorString = GetErrorString;
  d.DeviceGetCount = DeviceGetCount;
  d.DeviceGet = DeviceGet;
  d.DeviceGetName = DeviceGetName;
  d.DeviceGetAttribute = DeviceGetAttribute;
  d.DevicePrimaryCtxRetain = DevicePrimaryCtxRetain;
  d.CtxGetCurrent = CtxGetCurrent;
  d.CtxSetCurrent = CtxSetCurrent;
  d.CtxGetDevice = CtxGetDevice;
  d.ModuleLoadData = ModuleLoadData;
  d.ModuleUnload = ModuleUnload;
  d.ModuleGetFunction = ModuleGetFunction;
  d.FuncGetAttribute = FuncGetAttribute;
  d.FuncSetAttribute = FuncSetAttribute;
  d.FuncSetCacheConfig = FuncSetCacheConfig;
  d.LaunchKernel = LaunchKernel;
  d.LaunchKernelEx = LaunchKernelEx;
  d.MemAllocAsync = MemAllocAsync;
  d.MemFreeAsync = MemFreeAsync;
  return d;
}

RecordedLaunch g_recorded;
int g_expected_params = 0;

CUresult CUDAAPI RecordingLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                       unsigned bz, unsigned shared, CUstream stream, void** params, void** extra) {
  RecordedLaunch r;
  r.calls = g_recorded.calls + 1;
  r.function = f;
  r.grid[0] = gx, r.grid[1] = gy, r.grid[2] = gz;
  r.block[0] = bx, r.block[1] = by, r.block[2] = bz;
  r.shared = shared;
  r.stream = stream;
  // The driver learns the count from the cubin; here the caller says how many to read.
  r.num_params = g_expected_params;
  for (int i = 0; i < g_expected_params && i < 80; ++i) std::memcpy(&r.values[i], params[i], sizeof(uint64_t));
  (void)extra;
  g_recorded = r;
  return CUDA_SUCCESS;
}

}  // namespace

const triton_jit::cuda::DriverApi& fake_driver() {
  static const triton_jit::cuda::DriverApi table = make_table();
  return table;
}

CUfunction fake_function() { return kFunction; }

const triton_jit::cuda::DriverApi& recording_driver(int expected_params) {
  static triton_jit::cuda::DriverApi table = [] {
    triton_jit::cuda::DriverApi d = make_table();
    d.LaunchKernel = RecordingLaunchKernel;
    return d;
  }();
  g_expected_params = expected_params;
  g_recorded = RecordedLaunch{};
  return table;
}

const RecordedLaunch& last_recorded_launch() { return g_recorded; }

}  // namespace triton_jit_bench
