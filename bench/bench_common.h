#pragma once

// Shared by the CPU launch benchmark and its callgrind driver: the two benchmark kernels with
// fixed arguments, a launch of each through libtriton_jit, and the same launch done "by hand"
// (prepacked parameter array straight into the driver table's cuLaunchKernel).

#include <cuda.h>

#include <cstdint>
#include <string>

#include "cuda/driver_api.h"
#include "triton_jit/triton_jit.h"

namespace triton_jit_bench {

// bench/kernels/launch_kernels.py (absolute path, baked in at configure time).
std::string kernels_file();

// Installs the fake driver and the explicit cuda:90 target, loads both kernels (initializing the
// embedded Python), compiles them with a first launch and checks that a cached launch passes the
// driver exactly what RawLaunch passes. Prints what it did to stderr. Throws on failure.
struct Kernels {
  const triton_jit::TritonJitFunction* add = nullptr;   // 5 args, 4 runtime params
  const triton_jit::TritonJitFunction* many = nullptr;  // 15 args, 14 runtime params
};
Kernels setup_fake_runtime();

// The arguments of each kernel's launches.
struct AddArgs {
  float* x;
  float* y;
  float* out;
  int32_t n;
  static constexpr int kBlock = 1024;
};
struct ManyArgs {
  float* x[4];
  float* out;
  int32_t n;
  int32_t o[4];  // none equal to 1: Triton would make it a constexpr
  float a[4];
  static constexpr int kBlock = 1024;
};
AddArgs add_args();
ManyArgs many_args();

inline triton_jit::LaunchConfig one_program() {
  triton_jit::LaunchConfig c;
  c.grid = triton_jit::Grid(1);
  c.num_warps = 4;
  return c;
}

// What a user writes: fn(config, args...).
inline void launch_add(const triton_jit::TritonJitFunction& fn, const AddArgs& a) {
  fn(one_program(), a.x, a.y, a.out, a.n, AddArgs::kBlock);
}
inline void launch_many(const triton_jit::TritonJitFunction& fn, const ManyArgs& a) {
  fn(one_program(), a.x[0], a.x[1], a.x[2], a.x[3], a.out, a.n, a.o[0], a.o[1], a.o[2], a.o[3], a.a[0], a.a[1], a.a[2],
     a.a[3], ManyArgs::kBlock);
}

// The floor: a parameter array packed once, as the runtime packs it (one 8-byte slot per runtime
// parameter, then one null pointer per scratch parameter), handed to the table's cuLaunchKernel.
struct RawLaunch {
  CUfunction function = nullptr;
  unsigned block_x = 128;
  unsigned shared = 0;
  int num_params = 0;  // runtime params + scratch params
  alignas(8) uint64_t storage[32] = {};
  void* params[32] = {};

  void push(const void* value, size_t bytes);
  CUresult operator()(const triton_jit::cuda::DriverApi& d) const {
    return d.LaunchKernel(function, 1, 1, 1, block_x, 1, 1, shared, nullptr, const_cast<void**>(params), nullptr);
  }
};
RawLaunch raw_add(const AddArgs& a, const triton_jit::KernelInfo& info, CUfunction function);
RawLaunch raw_many(const ManyArgs& a, const triton_jit::KernelInfo& info, CUfunction function);

}  // namespace triton_jit_bench
