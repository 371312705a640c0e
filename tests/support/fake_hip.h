#pragma once
// The fake HIP runtime (fake_hip.cpp, a shared library exporting the hip* entry points the
// runtime's HIP table resolves, cuda/hip_driver.cpp): one AMD device of a configurable gfx
// processor. hipModuleLoadData reads the code object's AMDGPU metadata note and
// hipModuleLaunchKernel builds the kernarg segment from it, as the real runtime does: each
// explicit argument copied out of the launcher's array at its metadata offset and size. Every
// launch is recorded. Tests load it with cuda::load_hip_driver(path) and reach it through
// fake_hip_state() (dlsym).

#include <cstdint>
#include <string>
#include <vector>

namespace fake_hip {

// What each kernel launch advances the events' simulated clock by.
inline constexpr double kLaunchMs = 0.25;

struct Launch {
  std::string kernel;
  bool cooperative = false;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  void* stream = nullptr;
  int device = 0;
  size_t num_explicit_args = 0;        // the metadata's explicit arguments, each read from params
  std::vector<unsigned char> kernarg;  // the kernarg segment's explicit part, .kernarg_segment_size bytes
  std::vector<uint64_t> args;          // each explicit argument zero-extended, in order
};

struct State {
  std::string gcn_arch_name = "gfx942:sramecc+:xnack-";
  int warp_size = 64;
  int max_shared_per_block = 65536;
  int device_count = 1;
  int init_result = 0;  // what hipInit returns
  int load_result = 0;  // what hipModuleLoadData returns (0: parse and load)
  int capture_status = 0;  // what hipStreamIsCapturing reports (1: hipStreamCaptureStatusActive)
  std::vector<Launch> launches;
  std::vector<std::string> loaded_kernels;  // hipModuleGetFunction's names, in order
  int allocations = 0;                      // hipMalloc[Async] calls
  int memsets = 0;                          // hipMemsetD8/D32Async calls
  void reset() { *this = State{}; }
};

}  // namespace fake_hip

extern "C" fake_hip::State* fake_hip_state();
