#pragma once
// The one fake CUDA driver of the tests and the CPU benchmarks, in two tables over one device:
//
// table(): for tests. Modules are the real cubins Triton compiled: cuModuleGetFunction reads the
// kernel's parameter table from the cubin (.nv.info, written by ptxas), and cuLaunchKernel copies
// each parameter out of the launcher's array at the size the kernel expects, as the real driver
// does. Everything the runtime asks for is recorded.
//
// quiet_table(): for benchmarks. The calls of a cached launch (context, launch, scratch) do
// nothing but succeed, take no lock and record nothing, so that a benchmark times the runtime and
// not the fake; the rest is table()'s. One fixed context, every module and function the same
// handle. The functions live in their own translation unit so that no call through the table
// can be inlined.

#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/driver_api.h"

namespace fake {

struct Launch {
  bool ex = false;  // through cuLaunchKernelEx
  std::string kernel;
  CUcontext context = nullptr;  // current when launched
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  CUstream stream = nullptr;
  bool extra_null = true;
  std::vector<std::vector<unsigned char>> params;  // one per kernel parameter, at its size
  std::vector<CUlaunchAttribute> attrs;

  // Parameter i as the kernel reads it: little-endian, zero-extended to 64 bits.
  uint64_t u64(size_t i) const {
    uint64_t v = 0;
    std::memcpy(&v, params.at(i).data(), params.at(i).size() < 8 ? params.at(i).size() : 8);
    return v;
  }
  template <typename T>
  T as(size_t i) const {
    T v{};
    std::memcpy(&v, params.at(i).data(), sizeof v < params.at(i).size() ? sizeof v : params.at(i).size());
    return v;
  }
  std::vector<size_t> sizes() const {
    std::vector<size_t> s;
    for (const auto& p : params) s.push_back(p.size());
    return s;
  }
};

struct MemoryCall {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  CUstream stream = nullptr;
};

// One cuTensorMapEncodeTiled call, as the driver received it.
struct EncodeCall {
  int data_type = 0;
  unsigned rank = 0;
  uint64_t base = 0;
  std::vector<uint64_t> dims;     // innermost first
  std::vector<uint64_t> strides;  // bytes, rank - 1 of them
  std::vector<uint32_t> box;
  std::vector<uint32_t> element_strides;
  int interleave = 0, swizzle = 0, l2_promotion = 0, fill = 0;
};

// One stream-ordered or synchronizing call of the benchmarking/memory entry points, in call
// order (tests may add their own entries with note()). kind: "record", "sync_event",
// "sync_stream", "memset8", "memset32", "copy", "alloc", "free", "launch" (cuLaunchKernel[Ex]),
// or what note() was given.
struct Op {
  std::string kind;
  uint64_t dst = 0;    // memset/copy destination, alloc/free address
  uint64_t src = 0;    // copy source
  uint64_t count = 0;  // bytes (copy, alloc, memset8) or 32-bit words (memset32)
  uint32_t value = 0;  // memset value
  CUevent event = nullptr;
  CUstream stream = nullptr;
  double clock_ms = 0;  // the simulated clock when the call ran
};

struct State {
  // What the device reports.
  int cc_major = 9, cc_minor = 0;
  int max_grid[3] = {2147483647, 65535, 65535};
  int shared_optin = 232448;
  int device_count = 1;
  // Driver state.
  CUcontext current = nullptr;
  CUresult launch_result = CUDA_SUCCESS;
  CUresult encode_result = CUDA_SUCCESS;                                 // what cuTensorMapEncodeTiled returns
  CUstreamCaptureStatus capture_status = CU_STREAM_CAPTURE_STATUS_NONE;  // of every stream
  // Records.
  int module_loads = 0;
  int module_unloads = 0;
  int primary_retains = 0;
  int set_current_calls = 0;
  std::vector<Launch> launches;
  std::vector<MemoryCall> allocs, frees;
  std::vector<EncodeCall> encodes;  // each encoded map starts with its call's index (u64), then base
  std::vector<std::pair<CUfunction_attribute, int>> function_attributes_set;

  // Simulated time, for benchmarks. Events record the clock; cuEventElapsedTime returns the
  // difference as a float. Each kernel launch, memset and copy advances the clock by the given
  // time (install() sets them to 0); tests may also advance it themselves (advance()).
  double clock_ms = 0;
  double launch_ms = 0, memset_ms = 0, copy_ms = 0;
  // Memsets and copies of more bytes than this are recorded but not performed (the 256 MiB
  // benchmark flush buffer stays cheap). Device pointers from cuMemAlloc are host pointers.
  uint64_t write_limit = UINT64_MAX;
  // The entry point named here (e.g. "cuEventRecord") returns fail_result instead of running.
  std::string fail_call;
  CUresult fail_result = CUDA_ERROR_INVALID_VALUE;
  std::vector<Op> ops;
  int events_created = 0, events_destroyed = 0;
  uint64_t bytes_allocated = 0;  // live cuMemAlloc bytes
};

// The one fake device's state; tests set it before install() or reinstall().
State& state();

// A context handle no other test used, so first launches in it load modules afresh.
CUcontext new_context();
// The primary context cuDevicePrimaryCtxRetain hands out.
CUcontext primary_context();

// Resets the records (keeping the device settings), makes a fresh context current, installs the
// table and clears any explicit target.
void install();
// Installs again so that the runtime re-reads the device (after changing cc or limits).
void reinstall();
// Removes the fake: the runtime goes back to libcuda.
void uninstall();

// Advances the simulated clock (under the fake's lock) and records an Op of `kind` when given.
void advance(double ms, const char* kind = nullptr);
// Records an Op of `kind` at the current clock.
void note(const char* kind);
// The ops of `kind`, in order.
std::vector<Op> ops_of(const std::string& kind);

// The string the fake's cuGetErrorString gives for CUDA_ERROR_LAUNCH_FAILED.
inline constexpr const char* kLaunchFailedText = "fake driver: the kernel failed while running";

const triton_jit::cuda::DriverApi& table();

// --- The quiet table, for benchmarks (see the top of this file) ---

const triton_jit::cuda::DriverApi& quiet_table();

// The function handle the quiet table's cuModuleGetFunction hands out (for a raw baseline launch).
CUfunction quiet_function();

// A table like quiet_table() whose cuLaunchKernel keeps what it was given (for checking that a
// launch packs what the raw baseline passes).
struct QuietLaunch {
  int calls = 0;
  CUfunction function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  CUstream stream = nullptr;
  int num_params = 0;        // how many entries of kernelParams the caller said it passed (see below)
  uint64_t values[80] = {};  // first 8 bytes behind each kernelParams entry
};
const triton_jit::cuda::DriverApi& quiet_recording_table(int expected_params);
const QuietLaunch& last_quiet_launch();

// Fake device addresses: 256-byte aligned like cudaMalloc's, never dereferenced.
inline float* fake_device_buffer(int index) {
  return reinterpret_cast<float*>(static_cast<uintptr_t>(0x7f0000000000ull + 0x100000ull * (index + 1)));
}

}  // namespace fake
