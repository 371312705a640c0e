// The fake HIP runtime: fake_hip.h. Entry points with the signatures of ROCm's
// include/hip/hip_runtime_api.h (ROCm 6+), written with plain types: no HIP headers here.
#include "fake_hip.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "amdgpu_metadata.h"

namespace {

fake_hip::State g_state;
std::mutex g_mutex;
int g_current = 0;
double g_clock_ms = 0.0;
std::vector<std::unique_ptr<std::vector<amdgpu::Kernel>>> g_modules;  // hipModule_t: the kernels
std::vector<std::unique_ptr<amdgpu::Kernel>> g_functions;            // hipFunction_t: one kernel

constexpr int kSuccess = 0, kInvalidValue = 1, kInvalidDevice = 101, kInvalidImage = 200, kNotFound = 500,
              kNotSupported = 801;

int launch(void* f, bool cooperative, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
           unsigned shared, void* stream, void** params, void** extra) {
  if (f == nullptr || extra != nullptr) return kInvalidValue;
  const auto& k = *static_cast<const amdgpu::Kernel*>(f);
  fake_hip::Launch l;
  l.kernel = k.name;
  l.cooperative = cooperative;
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.shared = shared;
  l.stream = stream;
  l.device = g_current;
  l.kernarg.assign(k.kernarg_segment_size, 0);
  const auto args = k.explicit_args();
  l.num_explicit_args = args.size();
  if (!args.empty() && params == nullptr) return kInvalidValue;
  for (size_t i = 0; i < args.size(); ++i) {
    // As the HIP runtime does: the i-th explicit argument from params[i], at the size it declares.
    std::memcpy(l.kernarg.data() + args[i].offset, params[i], args[i].size);
    uint64_t v = 0;
    std::memcpy(&v, params[i], args[i].size < 8 ? args[i].size : 8);
    l.args.push_back(v);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_clock_ms += fake_hip::kLaunchMs;
  g_state.launches.push_back(std::move(l));
  return kSuccess;
}

}  // namespace

extern "C" {

fake_hip::State* fake_hip_state() { return &g_state; }

// The same record in plain C types, for tests in Python (ctypes): tests/python/test_rocm.py.
int fake_hip_num_launches() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return static_cast<int>(g_state.launches.size());
}
// Launch i's explicit arguments, zero-extended, into out[0..max); returns how many it had (-1: no launch i).
int fake_hip_launch_args(int i, uint64_t* out, int max) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (i < 0 || static_cast<size_t>(i) >= g_state.launches.size()) return -1;
  const auto& args = g_state.launches[static_cast<size_t>(i)].args;
  for (size_t k = 0; k < args.size() && static_cast<int>(k) < max; ++k) out[k] = args[k];
  return static_cast<int>(args.size());
}
// Launch i's grid, block (3 each), LDS bytes and stream; false when there is no launch i.
bool fake_hip_launch_shape(int i, unsigned* grid, unsigned* block, unsigned* shared, void** stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (i < 0 || static_cast<size_t>(i) >= g_state.launches.size()) return false;
  const auto& l = g_state.launches[static_cast<size_t>(i)];
  for (int d = 0; d < 3; ++d) grid[d] = l.grid[d], block[d] = l.block[d];
  *shared = l.shared;
  *stream = l.stream;
  return true;
}

int hipInit(unsigned) { return g_state.init_result; }
const char* hipGetErrorName(int e) {
  switch (e) {
    case kSuccess: return "hipSuccess";
    case kInvalidValue: return "hipErrorInvalidValue";
    case kInvalidDevice: return "hipErrorInvalidDevice";
    case 100: return "hipErrorNoDevice";
    case kInvalidImage: return "hipErrorInvalidImage";
    case 209: return "hipErrorNoBinaryForGpu";
    case kNotFound: return "hipErrorNotFound";
    case kNotSupported: return "hipErrorNotSupported";
    default: return "hipErrorUnknown";
  }
}
const char* hipGetErrorString(int e) { return e == kSuccess ? "no error" : "fake HIP runtime error"; }
int hipGetDeviceCount(int* n) {
  *n = g_state.device_count;
  return g_state.device_count == 0 ? 100 : kSuccess;
}
int hipGetDevice(int* d) {
  *d = g_current;
  return kSuccess;
}
int hipSetDevice(int d) {
  if (d < 0 || d >= g_state.device_count) return kInvalidDevice;
  g_current = d;
  return kSuccess;
}
int hipDeviceGetAttribute(int* v, int attr, int device) {
  if (device < 0 || device >= g_state.device_count) return kInvalidDevice;
  switch (attr) {
    case 29: *v = 2147483647; return kSuccess;  // hipDeviceAttributeMaxGridDimX
    case 30: case 31: *v = 65535; return kSuccess;
    case 63: *v = 304; return kSuccess;  // MultiprocessorCount (MI300X)
    case 74: *v = g_state.max_shared_per_block; return kSuccess;
    case 87: *v = g_state.warp_size; return kSuccess;
    case 10002: *v = g_state.max_shared_per_block; return kSuccess;
    case 23: *v = 9; return kSuccess;
    case 61: *v = 4; return kSuccess;
    default: return kInvalidValue;
  }
}
// hipDeviceProp_tR0600: gcnArchName (char[256]) at offset 1160 of its 1472 bytes.
int hipGetDevicePropertiesR0600(void* props, int device) {
  if (device < 0 || device >= g_state.device_count) return kInvalidDevice;
  std::memset(props, 0, 1472);
  std::strncpy(static_cast<char*>(props) + 1160, g_state.gcn_arch_name.c_str(), 255);
  return kSuccess;
}
int hipDeviceGetName(char* name, int len, int device) {
  if (device < 0 || device >= g_state.device_count) return kInvalidDevice;
  std::strncpy(name, "AMD Instinct MI300X (fake)", static_cast<size_t>(len) - 1);
  return kSuccess;
}
int hipModuleLoadData(void** module, const void* image) {
  if (g_state.load_result != kSuccess) return g_state.load_result;
  try {
    auto kernels = std::make_unique<std::vector<amdgpu::Kernel>>(amdgpu::read_kernels(image));
    std::lock_guard<std::mutex> lock(g_mutex);
    *module = kernels.get();
    g_modules.push_back(std::move(kernels));
    return kSuccess;
  } catch (const std::exception&) {
    return kInvalidImage;
  }
}
int hipModuleUnload(void*) { return kSuccess; }
int hipModuleGetFunction(void** f, void* module, const char* name) {
  if (module == nullptr) return kInvalidValue;
  for (const auto& k : *static_cast<std::vector<amdgpu::Kernel>*>(module)) {
    if (k.name == name) {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_functions.push_back(std::make_unique<amdgpu::Kernel>(k));
      *f = g_functions.back().get();
      g_state.loaded_kernels.push_back(name);
      return kSuccess;
    }
  }
  return kNotFound;
}
int hipFuncGetAttribute(int* v, int, void*) {
  *v = 0;
  return kSuccess;
}
int hipModuleLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void* stream, void** params, void** extra) {
  return launch(f, false, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
int hipModuleLaunchCooperativeKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  return launch(f, true, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
// Memory: addresses only, as device memory is not the host's: nothing here touches them. Each
// allocation gets its own range; memsets and copies are counted.
int hipMallocAsync(void** p, size_t n, void*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  static uintptr_t next = uintptr_t{0x7f0000000000};
  *p = reinterpret_cast<void*>(next);
  next += (n + 0xffff) & ~uintptr_t{0xffff};
  ++g_state.allocations;
  return kSuccess;
}
int hipFreeAsync(void*, void*) { return kSuccess; }
int hipMalloc(void** p, size_t n) { return hipMallocAsync(p, n, nullptr); }
int hipFree(void* p) { return hipFreeAsync(p, nullptr); }
int hipStreamIsCapturing(void*, int* status) {
  *status = g_state.capture_status;
  return kSuccess;
}
// Events read a simulated clock that each kernel launch advances by kLaunchMs.
int hipEventCreateWithFlags(void** e, unsigned) {
  *e = new double(0.0);
  return kSuccess;
}
int hipEventRecord(void* e, void*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *static_cast<double*>(e) = g_clock_ms;
  return kSuccess;
}
int hipEventSynchronize(void*) { return kSuccess; }
int hipEventElapsedTime(float* ms, void* start, void* stop) {
  *ms = static_cast<float>(*static_cast<double*>(stop) - *static_cast<double*>(start));
  return kSuccess;
}
int hipEventDestroy(void* e) {
  delete static_cast<double*>(e);
  return kSuccess;
}
int hipMemsetD8Async(void*, unsigned char, size_t, void*) {
  ++g_state.memsets;
  return kSuccess;
}
int hipMemsetD32Async(void*, int, size_t, void*) {
  ++g_state.memsets;
  return kSuccess;
}
int hipMemcpyDtoDAsync(void*, void*, size_t, void*) { return kSuccess; }
int hipStreamSynchronize(void*) { return kSuccess; }

}  // extern "C"
