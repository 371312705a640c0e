#include "fake_driver.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
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

struct Event {
  unsigned flags = 0;
  bool recorded = false;
  double time_ms = 0;
};
std::map<CUdeviceptr, size_t> g_host_allocs;  // cuMemAlloc's host blocks and their sizes

// Under g_mutex: records an op at the current clock.
Op& push_op(const char* kind, CUstream stream = nullptr) {
  State& s = state();
  Op op;
  op.kind = kind;
  op.stream = stream;
  op.clock_ms = s.clock_ms;
  s.ops.push_back(op);
  return s.ops.back();
}

// Under g_mutex: whether the test scripted `call` to fail.
bool fails(const char* call) { return !state().fail_call.empty() && state().fail_call == call; }

CUresult Init(unsigned int) { return CUDA_SUCCESS; }

CUresult GetErrorName(CUresult error, const char** s) {
  switch (error) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
    case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
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
  push_op("launch", stream);
  state().clock_ms += state().launch_ms;
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
  push_op("launch", c->hStream);
  state().clock_ms += state().launch_ms;
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

CUresult DeviceGetName(char* name, int length, CUdevice device) {
  if (length <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, static_cast<size_t>(length), "Fake GPU %d (sm_%d%d)", static_cast<int>(device), state().cc_major,
                state().cc_minor);
  return CUDA_SUCCESS;
}

CUresult EventCreate(CUevent* event, unsigned int flags) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuEventCreate")) return state().fail_result;
  *event = reinterpret_cast<CUevent>(new Event{flags});
  ++state().events_created;
  return CUDA_SUCCESS;
}

CUresult EventRecord(CUevent event, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuEventRecord")) return state().fail_result;
  auto* e = reinterpret_cast<Event*>(event);
  e->recorded = true;
  e->time_ms = state().clock_ms;
  push_op("record", stream).event = event;
  return CUDA_SUCCESS;
}

CUresult EventSynchronize(CUevent event) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuEventSynchronize")) return state().fail_result;
  push_op("sync_event").event = event;
  return CUDA_SUCCESS;
}

CUresult EventElapsedTime(float* ms, CUevent start, CUevent end) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuEventElapsedTime")) return state().fail_result;
  const auto* a = reinterpret_cast<const Event*>(start);
  const auto* b = reinterpret_cast<const Event*>(end);
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  *ms = static_cast<float>(b->time_ms - a->time_ms);
  return CUDA_SUCCESS;
}

CUresult EventDestroy(CUevent event) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuEventDestroy")) return state().fail_result;
  delete reinterpret_cast<Event*>(event);
  ++state().events_destroyed;
  return CUDA_SUCCESS;
}

CUresult MemAlloc(CUdeviceptr* ptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuMemAlloc")) return state().fail_result;
  // Host memory, 256-byte aligned as cuMemAlloc's is (large blocks are mapped lazily: pages
  // cost nothing until written).
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  g_host_allocs[*ptr] = bytes;
  state().bytes_allocated += bytes;
  Op& op = push_op("alloc");
  op.dst = *ptr;
  op.count = bytes;
  return CUDA_SUCCESS;
}

CUresult MemFree(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuMemFree")) return state().fail_result;
  auto it = g_host_allocs.find(ptr);
  if (it == g_host_allocs.end()) return CUDA_ERROR_INVALID_VALUE;
  state().bytes_allocated -= it->second;
  g_host_allocs.erase(it);
  std::free(reinterpret_cast<void*>(ptr));
  push_op("free").dst = ptr;
  return CUDA_SUCCESS;
}

CUresult MemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuMemsetD8Async")) return state().fail_result;
  Op& op = push_op("memset8", stream);
  op.dst = dst;
  op.count = count;
  op.value = value;
  if (count <= state().write_limit) std::memset(reinterpret_cast<void*>(dst), value, count);
  state().clock_ms += state().memset_ms;
  return CUDA_SUCCESS;
}

CUresult MemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuMemsetD32Async")) return state().fail_result;
  if (dst % 4 != 0) return CUDA_ERROR_INVALID_VALUE;  // as the driver: 4-byte aligned
  Op& op = push_op("memset32", stream);
  op.dst = dst;
  op.count = count;
  op.value = value;
  if (count * 4 <= state().write_limit) {
    auto* p = reinterpret_cast<uint32_t*>(dst);
    for (size_t i = 0; i < count; ++i) p[i] = value;
  }
  state().clock_ms += state().memset_ms;
  return CUDA_SUCCESS;
}

CUresult MemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuMemcpyDtoDAsync")) return state().fail_result;
  Op& op = push_op("copy", stream);
  op.dst = dst;
  op.src = src;
  op.count = bytes;
  if (bytes <= state().write_limit) std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes);
  state().clock_ms += state().copy_ms;
  return CUDA_SUCCESS;
}

CUresult StreamSynchronize(CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (fails("cuStreamSynchronize")) return state().fail_result;
  push_op("sync_stream", stream);
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
  t.DeviceGetName = DeviceGetName;
  t.EventCreate = EventCreate;
  t.EventRecord = EventRecord;
  t.EventSynchronize = EventSynchronize;
  t.EventElapsedTime = EventElapsedTime;
  t.EventDestroy = EventDestroy;
  t.MemAlloc = MemAlloc;
  t.MemFree = MemFree;
  t.MemsetD8Async = MemsetD8Async;
  t.MemsetD32Async = MemsetD32Async;
  t.MemcpyDtoDAsync = MemcpyDtoDAsync;
  t.StreamSynchronize = StreamSynchronize;
  return t;
}

// --- The quiet table: the calls of a cached launch without lock or record (benchmarks) ---

// Distinct non-null handles; the runtime only compares and passes them along.
alignas(64) char g_quiet_context_storage[64];
alignas(64) char g_quiet_module_storage[64];
alignas(64) char g_quiet_function_storage[64];
CUcontext const kQuietContext = reinterpret_cast<CUcontext>(g_quiet_context_storage);
CUmodule const kQuietModule = reinterpret_cast<CUmodule>(g_quiet_module_storage);
CUfunction const kQuietFunction = reinterpret_cast<CUfunction>(g_quiet_function_storage);

CUresult QuietPrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = kQuietContext;
  return CUDA_SUCCESS;
}
CUresult QuietCtxGetCurrent(CUcontext* c) {
  *c = kQuietContext;
  return CUDA_SUCCESS;
}
CUresult QuietCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult QuietModuleLoadData(CUmodule* m, const void*) {
  *m = kQuietModule;
  return CUDA_SUCCESS;
}
CUresult QuietModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult QuietModuleGetFunction(CUfunction* f, CUmodule, const char*) {
  *f = kQuietFunction;
  return CUDA_SUCCESS;
}
CUresult QuietFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult QuietLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void**, void**) {
  return CUDA_SUCCESS;
}
CUresult QuietLaunchKernelEx(const CUlaunchConfig*, CUfunction, void**, void**) { return CUDA_SUCCESS; }
alignas(256) char g_quiet_scratch[1 << 16];
CUresult QuietMemAllocAsync(CUdeviceptr* p, size_t, CUstream) {
  *p = reinterpret_cast<CUdeviceptr>(g_quiet_scratch);
  return CUDA_SUCCESS;
}
CUresult QuietMemFreeAsync(CUdeviceptr, CUstream) { return CUDA_SUCCESS; }
CUresult QuietDeviceGetName(char* name, int len, CUdevice) {
  std::snprintf(name, static_cast<size_t>(len), "%s", "fake bench device");
  return CUDA_SUCCESS;
}

triton_jit::cuda::DriverApi make_quiet_table() {
  triton_jit::cuda::DriverApi t = make_table();
  t.DevicePrimaryCtxRetain = QuietPrimaryCtxRetain;
  t.CtxGetCurrent = QuietCtxGetCurrent;
  t.CtxSetCurrent = QuietCtxSetCurrent;
  t.ModuleLoadData = QuietModuleLoadData;
  t.ModuleUnload = QuietModuleUnload;
  t.ModuleGetFunction = QuietModuleGetFunction;
  t.FuncSetAttribute = QuietFuncSetAttribute;
  t.LaunchKernel = QuietLaunchKernel;
  t.LaunchKernelEx = QuietLaunchKernelEx;
  t.MemAllocAsync = QuietMemAllocAsync;
  t.MemFreeAsync = QuietMemFreeAsync;
  t.DeviceGetName = QuietDeviceGetName;
  return t;
}

QuietLaunch g_quiet_recorded;
int g_quiet_expected_params = 0;

CUresult QuietRecordingLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shared, CUstream stream, void** params, void** extra) {
  QuietLaunch r;
  r.calls = g_quiet_recorded.calls + 1;
  r.function = f;
  r.grid[0] = gx, r.grid[1] = gy, r.grid[2] = gz;
  r.block[0] = bx, r.block[1] = by, r.block[2] = bz;
  r.shared = shared;
  r.stream = stream;
  // The driver learns the count from the cubin; here the caller says how many to read.
  r.num_params = g_quiet_expected_params;
  for (int i = 0; i < g_quiet_expected_params && i < 80; ++i) std::memcpy(&r.values[i], params[i], sizeof(uint64_t));
  (void)extra;
  g_quiet_recorded = r;
  return CUDA_SUCCESS;
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
    s.clock_ms = 0;
    s.launch_ms = s.memset_ms = s.copy_ms = 0;
    s.write_limit = UINT64_MAX;
    s.fail_call.clear();
    s.fail_result = CUDA_ERROR_INVALID_VALUE;
    s.ops.clear();
    s.events_created = s.events_destroyed = 0;
  }
  triton_jit::cuda::set_driver_for_testing(&table());
  triton_jit::set_target(std::nullopt);
}

void advance(double ms, const char* kind) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (kind != nullptr) push_op(kind);
  state().clock_ms += ms;
}

void note(const char* kind) {
  std::lock_guard<std::mutex> lock(g_mutex);
  push_op(kind);
}

std::vector<Op> ops_of(const std::string& kind) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<Op> out;
  for (const Op& op : state().ops) {
    if (op.kind == kind) out.push_back(op);
  }
  return out;
}

void reinstall() { triton_jit::cuda::set_driver_for_testing(&table()); }

void uninstall() {
  triton_jit::cuda::set_driver_for_testing(nullptr);
  triton_jit::set_target(std::nullopt);
  state() = State{};
}

const triton_jit::cuda::DriverApi& quiet_table() {
  static const triton_jit::cuda::DriverApi t = make_quiet_table();
  return t;
}

CUfunction quiet_function() { return kQuietFunction; }

const triton_jit::cuda::DriverApi& quiet_recording_table(int expected_params) {
  static const triton_jit::cuda::DriverApi t = [] {
    triton_jit::cuda::DriverApi d = make_quiet_table();
    d.LaunchKernel = QuietRecordingLaunchKernel;
    return d;
  }();
  g_quiet_expected_params = expected_params;
  g_quiet_recorded = QuietLaunch{};
  return t;
}

const QuietLaunch& last_quiet_launch() { return g_quiet_recorded; }

}  // namespace fake
