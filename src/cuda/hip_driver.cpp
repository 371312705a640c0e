#include "cuda/hip_driver.h"

#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

namespace triton_jit::cuda {
namespace {

// The few HIP types and values the adapters need, as ROCm declares them in
// include/hip/hip_runtime_api.h (HIP 7.1, the copy Triton 3.6's wheel ships in
// triton/backends/amd/include/hip/). hipError_t values equal CUresult's for every code the
// runtime tests, so results pass through unchanged.
using hipError_t = int;
using hipDevice_t = int;
using hipModule_t = void*;
using hipFunction_t = void*;
using hipStream_t = void*;
using hipEvent_t = void*;
using hipDeviceptr_t = void*;
constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorNotSupported = 801;
// hipDeviceAttribute_t
constexpr int hipDeviceAttributeMaxGridDimX = 29;
constexpr int hipDeviceAttributeMaxGridDimY = 30;
constexpr int hipDeviceAttributeMaxGridDimZ = 31;
constexpr int hipDeviceAttributeMultiprocessorCount = 63;
constexpr int hipDeviceAttributeMaxSharedMemoryPerBlock = 74;  // the LDS a block may use: 64 KiB on gfx942
constexpr int hipDeviceAttributeWarpSize = 87;
constexpr int hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002;
constexpr int hipDeviceAttributeComputeCapabilityMajor = 23;
constexpr int hipDeviceAttributeComputeCapabilityMinor = 61;
// hipFunction_attribute
constexpr int HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
// hipDeviceProp_tR0600 (what hipGetDeviceProperties is since ROCm 6; the suffix names the frozen
// revision): 1472 bytes, gcnArchName (char[256]) at offset 1160, as offsetof gives with that
// header. Read into a larger buffer, so a longer struct cannot overrun it.
constexpr size_t kDevicePropBytes = 4096;
constexpr size_t kGcnArchNameOffset = 1160;
constexpr size_t kGcnArchNameBytes = 256;

struct HipApi {
  hipError_t (*Init)(unsigned) = nullptr;
  const char* (*GetErrorName)(hipError_t) = nullptr;
  const char* (*GetErrorString)(hipError_t) = nullptr;
  hipError_t (*GetDeviceCount)(int*) = nullptr;
  hipError_t (*GetDevice)(int*) = nullptr;
  hipError_t (*SetDevice)(int) = nullptr;
  hipError_t (*DeviceGetAttribute)(int*, int, int) = nullptr;
  hipError_t (*GetDeviceProperties)(void*, int) = nullptr;
  hipError_t (*DeviceGetName)(char*, int, hipDevice_t) = nullptr;
  hipError_t (*ModuleLoadData)(hipModule_t*, const void*) = nullptr;
  hipError_t (*ModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*ModuleGetFunction)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*FuncGetAttribute)(int*, int, hipFunction_t) = nullptr;
  hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   hipStream_t, void**, void**) = nullptr;
  hipError_t (*ModuleLaunchCooperativeKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
                                              unsigned, unsigned, hipStream_t, void**, void**) = nullptr;
  hipError_t (*MallocAsync)(void**, size_t, hipStream_t) = nullptr;
  hipError_t (*FreeAsync)(void*, hipStream_t) = nullptr;
  hipError_t (*StreamIsCapturing)(hipStream_t, int*) = nullptr;
  hipError_t (*EventCreateWithFlags)(hipEvent_t*, unsigned) = nullptr;
  hipError_t (*EventRecord)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*EventSynchronize)(hipEvent_t) = nullptr;
  hipError_t (*EventElapsedTime)(float*, hipEvent_t, hipEvent_t) = nullptr;
  hipError_t (*EventDestroy)(hipEvent_t) = nullptr;
  hipError_t (*Malloc)(void**, size_t) = nullptr;
  hipError_t (*Free)(void*) = nullptr;
  hipError_t (*MemsetD8Async)(hipDeviceptr_t, unsigned char, size_t, hipStream_t) = nullptr;
  hipError_t (*MemsetD32Async)(hipDeviceptr_t, int, size_t, hipStream_t) = nullptr;
  hipError_t (*MemcpyDtoDAsync)(hipDeviceptr_t, hipDeviceptr_t, size_t, hipStream_t) = nullptr;
  hipError_t (*StreamSynchronize)(hipStream_t) = nullptr;
};

// The adapters are plain functions (the table holds function pointers), so the HIP table in use is
// a global: one HIP runtime per process, as a process has one libamdhip64.
const HipApi* g_hip = nullptr;

CUresult ok(hipError_t e) { return static_cast<CUresult>(e); }
void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// HIP has no contexts to speak of: the current context is the current device, written as
// device + 1 so that it is never null (the launch path caches by context).
CUcontext context_of(int device) { return reinterpret_cast<CUcontext>(static_cast<uintptr_t>(device) + 1); }

CUresult a_Init(unsigned flags) { return ok(g_hip->Init(flags)); }
CUresult a_GetErrorName(CUresult r, const char** s) {
  *s = g_hip->GetErrorName(static_cast<hipError_t>(r));
  return CUDA_SUCCESS;
}
CUresult a_GetErrorString(CUresult r, const char** s) {
  *s = g_hip->GetErrorString(static_cast<hipError_t>(r));
  return CUDA_SUCCESS;
}
CUresult a_DeviceGetCount(int* n) { return ok(g_hip->GetDeviceCount(n)); }
CUresult a_DeviceGet(CUdevice* d, int ordinal) {
  int count = 0;
  const hipError_t e = g_hip->GetDeviceCount(&count);
  if (e != hipSuccess) return ok(e);
  if (ordinal < 0 || ordinal >= count) return CUDA_ERROR_INVALID_DEVICE;  // hipErrorInvalidDevice too
  *d = ordinal;
  return CUDA_SUCCESS;
}
int hip_attribute(CUdevice_attribute a) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return hipDeviceAttributeMaxGridDimX;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return hipDeviceAttributeMaxGridDimY;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return hipDeviceAttributeMaxGridDimZ;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return hipDeviceAttributeMultiprocessorCount;
    // AMD has no opt-in: a block may use all the LDS the device gives one (Triton's AMD driver
    // reports sharedMemPerBlock as max_shared_mem).
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return hipDeviceAttributeMaxSharedMemoryPerBlock;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return hipDeviceAttributeMaxSharedMemoryPerBlock;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      return hipDeviceAttributeMaxSharedMemoryPerMultiprocessor;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return hipDeviceAttributeWarpSize;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return hipDeviceAttributeComputeCapabilityMajor;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return hipDeviceAttributeComputeCapabilityMinor;
    default: return -1;
  }
}
CUresult a_DeviceGetAttribute(int* value, CUdevice_attribute a, CUdevice d) {
  const int h = hip_attribute(a);
  if (h < 0) return static_cast<CUresult>(hipErrorNotSupported);
  return ok(g_hip->DeviceGetAttribute(value, h, d));
}
CUresult a_DevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  *c = context_of(d);
  return CUDA_SUCCESS;
}
CUresult a_CtxGetCurrent(CUcontext* c) {
  int device = 0;
  const hipError_t e = g_hip->GetDevice(&device);
  if (e == hipSuccess) *c = context_of(device);
  return ok(e);
}
CUresult a_CtxSetCurrent(CUcontext c) {
  return ok(g_hip->SetDevice(static_cast<int>(reinterpret_cast<uintptr_t>(c) - 1)));
}
CUresult a_CtxGetDevice(CUdevice* d) {
  int device = 0;
  const hipError_t e = g_hip->GetDevice(&device);
  *d = device;
  return ok(e);
}
CUresult a_ModuleLoadData(CUmodule* m, const void* image) {
  return ok(g_hip->ModuleLoadData(reinterpret_cast<hipModule_t*>(m), image));
}
CUresult a_ModuleUnload(CUmodule m) { return ok(g_hip->ModuleUnload(m)); }
CUresult a_ModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  return ok(g_hip->ModuleGetFunction(reinterpret_cast<hipFunction_t*>(f), m, name));
}
CUresult a_FuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  if (a != CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) return static_cast<CUresult>(hipErrorNotSupported);
  return ok(g_hip->FuncGetAttribute(v, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
}
// A block needs no opt-in to the device's LDS and HIP has no cache configuration to set: what the
// loader asks of CUDA above 48 KiB has nothing to do here (Triton's AMD loader does neither).
CUresult a_FuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult a_FuncSetCacheConfig(CUfunction, CUfunc_cache) { return CUDA_SUCCESS; }
CUresult a_LaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void** params, void** extra) {
  return ok(g_hip->ModuleLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra));
}
// Triton's AMD launcher: cooperative launches through hipModuleLaunchCooperativeKernel. Clusters
// (num_ctas > 1, gfx1250's hipDrvLaunchKernelEx) and programmatic dependent launch are not
// launched here: not supported, which the launcher reports as a failed launch.
CUresult a_LaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  bool cooperative = false;
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && c->attrs[i].value.cooperative != 0) {
      cooperative = true;
    } else {
      return static_cast<CUresult>(hipErrorNotSupported);
    }
  }
  auto* launch = cooperative ? g_hip->ModuleLaunchCooperativeKernel : g_hip->ModuleLaunchKernel;
  return ok(launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                   c->sharedMemBytes, c->hStream, params, extra));
}
CUresult a_MemAllocAsync(CUdeviceptr* p, size_t n, CUstream s) {
  void* out = nullptr;
  const hipError_t e = g_hip->MallocAsync(&out, n, s);
  *p = reinterpret_cast<uintptr_t>(out);
  return ok(e);
}
CUresult a_MemFreeAsync(CUdeviceptr p, CUstream s) { return ok(g_hip->FreeAsync(ptr(p), s)); }
CUresult a_StreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  int st = 0;  // hipStreamCaptureStatusNone/Active/Invalidated = 0/1/2, as CUDA's
  const hipError_t e = g_hip->StreamIsCapturing(s, &st);
  *status = static_cast<CUstreamCaptureStatus>(st);
  return ok(e);
}
CUresult a_TensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  return static_cast<CUresult>(hipErrorNotSupported);  // host TMA descriptors are NVIDIA's
}
CUresult a_DeviceGetName(char* name, int len, CUdevice d) { return ok(g_hip->DeviceGetName(name, len, d)); }
CUresult a_EventCreate(CUevent* e, unsigned flags) {
  return ok(g_hip->EventCreateWithFlags(reinterpret_cast<hipEvent_t*>(e), flags));
}
CUresult a_EventRecord(CUevent e, CUstream s) { return ok(g_hip->EventRecord(e, s)); }
CUresult a_EventSynchronize(CUevent e) { return ok(g_hip->EventSynchronize(e)); }
CUresult a_EventElapsedTime(float* ms, CUevent a, CUevent b) { return ok(g_hip->EventElapsedTime(ms, a, b)); }
CUresult a_EventDestroy(CUevent e) { return ok(g_hip->EventDestroy(e)); }
CUresult a_MemAlloc(CUdeviceptr* p, size_t n) {
  void* out = nullptr;
  const hipError_t e = g_hip->Malloc(&out, n);
  *p = reinterpret_cast<uintptr_t>(out);
  return ok(e);
}
CUresult a_MemFree(CUdeviceptr p) { return ok(g_hip->Free(ptr(p))); }
CUresult a_MemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s) {
  return ok(g_hip->MemsetD8Async(ptr(p), v, n, s));
}
CUresult a_MemsetD32Async(CUdeviceptr p, unsigned v, size_t n, CUstream s) {
  return ok(g_hip->MemsetD32Async(ptr(p), static_cast<int>(v), n, s));
}
CUresult a_MemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  return ok(g_hip->MemcpyDtoDAsync(ptr(d), ptr(s), n, st));
}
CUresult a_StreamSynchronize(CUstream s) { return ok(g_hip->StreamSynchronize(s)); }
CUresult a_DeviceGetGfxArch(int* arch, CUdevice d) {
  // On the heap, once per device (cold): a 4 KiB thread_local would grow the library's static TLS,
  // and with it the share of other modules' TLS that glibc serves dynamically (which LeakSanitizer's
  // scan at exit then misread in the CPU tests under ASan).
  const auto props = std::make_unique<std::array<unsigned char, kDevicePropBytes>>();
  const hipError_t e = g_hip->GetDeviceProperties(props->data(), d);
  if (e != hipSuccess) return ok(e);
  char name[kGcnArchNameBytes + 1] = {};
  std::memcpy(name, props->data() + kGcnArchNameOffset, kGcnArchNameBytes);
  *arch = parse_gfx_arch(name);
  return CUDA_SUCCESS;
}

template <typename Fn>
bool resolve(void* lib, const char* name, Fn* out, const std::string& library, std::string* error) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*out == nullptr) *error = library + " has no symbol " + name + "; the HIP runtime is older than ROCm 6";
  return *out != nullptr;
}

struct LoadedHip {
  HipApi hip;
  DriverApi api;
};

}  // namespace

int parse_gfx_arch(const char* name) {
  if (name == nullptr || std::strncmp(name, "gfx", 3) != 0) return -1;
  int value = 0, digits = 0;
  for (const char* p = name + 3; *p != '\0' && *p != ':'; ++p, ++digits) {
    int v;
    if (*p >= '0' && *p <= '9') v = *p - '0';
    else if (*p >= 'a' && *p <= 'f') v = *p - 'a' + 10;
    else return -1;
    if (digits == 4) return -1;
    value = value * 16 + v;
  }
  return digits == 0 ? -1 : value;
}

const DriverApi* load_hip_driver(const std::string& library, std::string* error) {
  static std::mutex mutex;
  // Never destroyed: a table may be in use until the process ends (static destruction included).
  static auto& loaded = *new std::map<std::string, std::unique_ptr<LoadedHip>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded.find(library); it != loaded.end()) {
    g_hip = &it->second->hip;
    return &it->second->api;
  }
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    *error = library + " could not be loaded (" + (why ? why : "unknown") + ")";
    return nullptr;
  }
  auto l = std::make_unique<LoadedHip>();
  HipApi& h = l->hip;
  const bool resolved =
      resolve(lib, "hipInit", &h.Init, library, error) && resolve(lib, "hipGetErrorName", &h.GetErrorName, library, error) &&
      resolve(lib, "hipGetErrorString", &h.GetErrorString, library, error) &&
      resolve(lib, "hipGetDeviceCount", &h.GetDeviceCount, library, error) &&
      resolve(lib, "hipGetDevice", &h.GetDevice, library, error) && resolve(lib, "hipSetDevice", &h.SetDevice, library, error) &&
      resolve(lib, "hipDeviceGetAttribute", &h.DeviceGetAttribute, library, error) &&
      resolve(lib, "hipGetDevicePropertiesR0600", &h.GetDeviceProperties, library, error) &&
      resolve(lib, "hipDeviceGetName", &h.DeviceGetName, library, error) &&
      resolve(lib, "hipModuleLoadData", &h.ModuleLoadData, library, error) &&
      resolve(lib, "hipModuleUnload", &h.ModuleUnload, library, error) &&
      resolve(lib, "hipModuleGetFunction", &h.ModuleGetFunction, library, error) &&
      resolve(lib, "hipFuncGetAttribute", &h.FuncGetAttribute, library, error) &&
      resolve(lib, "hipModuleLaunchKernel", &h.ModuleLaunchKernel, library, error) &&
      resolve(lib, "hipModuleLaunchCooperativeKernel", &h.ModuleLaunchCooperativeKernel, library, error) &&
      resolve(lib, "hipMallocAsync", &h.MallocAsync, library, error) &&
      resolve(lib, "hipFreeAsync", &h.FreeAsync, library, error) &&
      resolve(lib, "hipStreamIsCapturing", &h.StreamIsCapturing, library, error) &&
      resolve(lib, "hipEventCreateWithFlags", &h.EventCreateWithFlags, library, error) &&
      resolve(lib, "hipEventRecord", &h.EventRecord, library, error) &&
      resolve(lib, "hipEventSynchronize", &h.EventSynchronize, library, error) &&
      resolve(lib, "hipEventElapsedTime", &h.EventElapsedTime, library, error) &&
      resolve(lib, "hipEventDestroy", &h.EventDestroy, library, error) &&
      resolve(lib, "hipMalloc", &h.Malloc, library, error) && resolve(lib, "hipFree", &h.Free, library, error) &&
      resolve(lib, "hipMemsetD8Async", &h.MemsetD8Async, library, error) &&
      resolve(lib, "hipMemsetD32Async", &h.MemsetD32Async, library, error) &&
      resolve(lib, "hipMemcpyDtoDAsync", &h.MemcpyDtoDAsync, library, error) &&
      resolve(lib, "hipStreamSynchronize", &h.StreamSynchronize, library, error);
  if (!resolved) return nullptr;
  const hipError_t init = h.Init(0);
  if (init != hipSuccess) {
    const char* name = h.GetErrorName(init);
    *error = "the HIP runtime " + library + " failed to initialize: hipInit returned " + (name ? name : "?") +
             (init == 100 ? "; this machine has no AMD GPU" : "");
    return nullptr;
  }
  DriverApi& a = l->api;
  a.Init = a_Init;
  a.GetErrorName = a_GetErrorName;
  a.GetErrorString = a_GetErrorString;
  a.DeviceGetCount = a_DeviceGetCount;
  a.DeviceGet = a_DeviceGet;
  a.DeviceGetAttribute = a_DeviceGetAttribute;
  a.DevicePrimaryCtxRetain = a_DevicePrimaryCtxRetain;
  a.CtxGetCurrent = a_CtxGetCurrent;
  a.CtxSetCurrent = a_CtxSetCurrent;
  a.CtxGetDevice = a_CtxGetDevice;
  a.ModuleLoadData = a_ModuleLoadData;
  a.ModuleUnload = a_ModuleUnload;
  a.ModuleGetFunction = a_ModuleGetFunction;
  a.FuncGetAttribute = a_FuncGetAttribute;
  a.FuncSetAttribute = a_FuncSetAttribute;
  a.FuncSetCacheConfig = a_FuncSetCacheConfig;
  a.LaunchKernel = a_LaunchKernel;
  a.LaunchKernelEx = a_LaunchKernelEx;
  a.MemAllocAsync = a_MemAllocAsync;
  a.MemFreeAsync = a_MemFreeAsync;
  a.StreamIsCapturing = a_StreamIsCapturing;
  a.TensorMapEncodeTiled = a_TensorMapEncodeTiled;
  a.DeviceGetName = a_DeviceGetName;
  a.EventCreate = a_EventCreate;
  a.EventRecord = a_EventRecord;
  a.EventSynchronize = a_EventSynchronize;
  a.EventElapsedTime = a_EventElapsedTime;
  a.EventDestroy = a_EventDestroy;
  a.MemAlloc = a_MemAlloc;
  a.MemFree = a_MemFree;
  a.MemsetD8Async = a_MemsetD8Async;
  a.MemsetD32Async = a_MemsetD32Async;
  a.MemcpyDtoDAsync = a_MemcpyDtoDAsync;
  a.StreamSynchronize = a_StreamSynchronize;
  a.DeviceGetGfxArch = a_DeviceGetGfxArch;
  g_hip = &l->hip;
  const DriverApi* table = &l->api;
  loaded.emplace(library, std::move(l));
  return table;
}

}  // namespace triton_jit::cuda
