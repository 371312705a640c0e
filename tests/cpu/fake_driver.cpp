#include "fake_driver.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>

#include "cubin_reader.h"
#include "triton_jit/settings.h"

namespace fake {
namespace {

struct Module {
  std::string image;
};

struct Function {
  std::string name;
  std::vector<cubin::KernelParam> params;
};

std::mutex g_mutex;
std::deque<Module> g_modules;  // addresses stay valid: handles point into them
std::deque<Function> g_functions;
std::atomic<uintptr_t> g_next_context{0x10000};
CUdeviceptr g_next_alloc = 0xd0000000;

template <typename T>
T handle(const void* p) {
  return reinterpret_cast<T>(const_cast<void*>(p));
}

CUresult Init(unsigned int) { return CUDA_SUCCESS; }

CUresult GetErrorName(CUresult error, const char** s) {
  switch (error) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
    case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    default: *s = "CUDA_ERROR_FAKE_OTHER"; break;
  }
  return CUDA_SUCCESS;
}

CUresult GetErrorString(CUresult error, const char** s) {
  switch (error) {
    case CUDA_SUCCESS: *s = "no error"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *s = kLaunchFailedText; break;
    default: *s = "fake driver: some other error"; break;
  }
  return CUDA_SUCCESS;
}

CUresult DeviceGetCount(int* count) {
  *count = state().device_count;
  return CUDA_SUCCESS;
}

CUresult DeviceGet(CUdevice* device, int ordinal) {
  if (ordinal < 0 || ordinal >= state().device_count) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult DeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  const State& s = state();
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = s.cc_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = s.cc_minor; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = s.max_grid[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = s.max_grid[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = s.max_grid[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = s.shared_optin; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = 233472; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    default: *value = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult DevicePrimaryCtxRetain(CUcontext* context, CUdevice) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++state().primary_retains;
  *context = primary_context();
  return CUDA_SUCCESS;
}

CUresult CtxGetCurrent(CUcontext* context) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *context = state().current;
  return CUDA_SUCCESS;
}

CUresult CtxSetCurrent(CUcontext context) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++state().set_current_calls;
  state().current = context;
  return CUDA_SUCCESS;
}

CUresult CtxGetDevice(CUdevice* device) {
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult ModuleLoadData(CUmodule* module, const void* image) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (!cubin::is_elf64(bytes, 64) || cubin::machine(bytes) != cubin::kEmCuda) return CUDA_ERROR_INVALID_IMAGE;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_modules.push_back(Module{std::string(reinterpret_cast<const char*>(bytes), cubin::image_size(bytes))});
  ++state().module_loads;
  *module = handle<CUmodule>(&g_modules.back());
  return CUDA_SUCCESS;
}

CUresult ModuleUnload(CUmodule) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++state().module_unloads;
  return CUDA_SUCCESS;
}

CUresult ModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto* m = reinterpret_cast<const Module*>(module);
  auto params = cubin::kernel_params(m->image, name);
  if (!params) return CUDA_ERROR_NOT_FOUND;
  g_functions.push_back(Function{name, std::move(*params)});
  *function = handle<CUfunction>(&g_functions.back());
  return CUDA_SUCCESS;
}

CUresult FuncGetAttribute(int* value, CUfunction_attribute, CUfunction) {
  *value = 0;
  return CUDA_SUCCESS;
}

CUresult FuncSetAttribute(CUfunction, CUfunction_attribute attribute, int value) {
  std::lock_guard<std::mutex> lock(g_mutex);
  state().function_attributes_set.emplace_back(attribute, value);
  return CUDA_SUCCESS;
}

CUresult FuncSetCacheConfig(CUfunction, CUfunc_cache) { return CUDA_SUCCESS; }

Launch record(CUfunction f, void** kernel_params, void** extra) {
  const auto* fn = reinterpret_cast<const Function*>(f);
  Launch l;
  l.kernel = fn->name;
  l.context = state().current;
  l.extra_null = extra == nullptr;
  for (const cubin::KernelParam& p : fn->params) {
    const auto* src = static_cast<const unsigned char*>(kernel_params[p.ordinal]);
    l.params.emplace_back(src, src + p.size);
  }
  return l;
}

CUresult LaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shared, CUstream stream, void** kernel_params, void** extra) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Launch l = record(f, kernel_params, extra);
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.shared = shared;
  l.stream = stream;
  state().launches.push_back(std::move(l));
  return state().launch_result;
}

CUresult LaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** kernel_params, void** extra) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Launch l = record(f, kernel_params, extra);
  l.ex = true;
  l.grid[0] = c->gridDimX, l.grid[1] = c->gridDimY, l.grid[2] = c->gridDimZ;
  l.block[0] = c->blockDimX, l.block[1] = c->blockDimY, l.block[2] = c->blockDimZ;
  l.shared = c->sharedMemBytes;
  l.stream = c->hStream;
  l.attrs.assign(c->attrs, c->attrs + c->numAttrs);
  state().launches.push_back(std::move(l));
  return state().launch_result;
}

CUresult MemAllocAsync(CUdeviceptr* ptr, size_t bytes, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *ptr = g_next_alloc;
  g_next_alloc += 0x100000;
  state().allocs.push_back(MemoryCall{*ptr, bytes, stream});
  return CUDA_SUCCESS;
}

CUresult MemFreeAsync(CUdeviceptr ptr, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  state().frees.push_back(MemoryCall{ptr, 0, stream});
  return CUDA_SUCCESS;
}

CUresult TensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* base,
                              const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                              const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  State& s = state();
  if (s.encode_result != CUDA_SUCCESS) return s.encode_result;
  EncodeCall c;
  c.data_type = static_cast<int>(type);
  c.rank = rank;
  c.base = reinterpret_cast<uintptr_t>(base);
  c.dims.assign(dims, dims + rank);
  c.strides.assign(strides, strides + (rank > 0 ? rank - 1 : 0));
  c.box.assign(box, box + rank);
  c.element_strides.assign(element_strides, element_strides + rank);
  c.interleave = static_cast<int>(interleave);
  c.swizzle = static_cast<int>(swizzle);
  c.l2_promotion = static_cast<int>(l2);
  c.fill = static_cast<int>(fill);
  std::memset(map, 0, sizeof *map);
  const uint64_t words[2] = {s.encodes.size(), c.base};
  std::memcpy(map, words, sizeof words);
  s.encodes.push_back(std::move(c));
  return CUDA_SUCCESS;
}

CUresult StreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = state().capture_status;
  return CUDA_SUCCESS;
}

triton_jit::cuda::DriverApi make_table() {
  triton_jit::cuda::DriverApi t;
  t.Init = Init;
  t.GetErrorName = GetErrorName;
  t.GetErrorString = GetErrorString;
  t.DeviceGetCount = DeviceGetCount;
  t.DeviceGet = DeviceGet;
  t.DeviceGetAttribute = DeviceGetAttribute;
  t.DevicePrimaryCtxRetain = DevicePrimaryCtxRetain;
  t.CtxGetCurrent = CtxGetCurrent;
  t.CtxSetCurrent = CtxSetCurrent;
  t.CtxGetDevice = CtxGetDevice;
  t.ModuleLoadData = ModuleLoadData;
  t.ModuleUnload = ModuleUnload;
  t.ModuleGetFunction = ModuleGetFunction;
  t.FuncGetAttribute = FuncGetAttribute;
  t.FuncSetAttribute = FuncSetAttribute;
  t.FuncSetCacheConfig = FuncSetCacheConfig;
  t.LaunchKernel = LaunchKernel;
  t.LaunchKernelEx = LaunchKernelEx;
  t.MemAllocAsync = MemAllocAsync;
  t.MemFreeAsync = MemFreeAsync;
  t.StreamIsCapturing = StreamIsCapturing;
  t.TensorMapEncodeTiled = TensorMapEncodeTiled;
  return t;
}

}  // namespace

State& state() {
  static State s;
  return s;
}

CUcontext new_context() { return reinterpret_cast<CUcontext>(g_next_context.fetch_add(0x100)); }

CUcontext primary_context() { return reinterpret_cast<CUcontext>(uintptr_t{0xc0c0c000}); }

const triton_jit::cuda::DriverApi& table() {
  static const triton_jit::cuda::DriverApi t = make_table();
  return t;
}

void install() {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    s.current = new_context();
    s.launch_result = CUDA_SUCCESS;
    s.capture_status = CU_STREAM_CAPTURE_STATUS_NONE;
    s.module_loads = s.module_unloads = s.primary_retains = s.set_current_calls = 0;
    s.launches.clear();
    s.allocs.clear();
    s.encodes.clear();
    s.encode_result = CUDA_SUCCESS;
    s.frees.clear();
    s.function_attributes_set.clear();
  }
  triton_jit::cuda::set_driver_for_testing(&table());
  triton_jit::set_target(std::nullopt);
}

void reinstall() { triton_jit::cuda::set_driver_for_testing(&table()); }

void uninstall() {
  triton_jit::cuda::set_driver_for_testing(nullptr);
  triton_jit::set_target(std::nullopt);
  state() = State{};
}

}  // namespace fake
