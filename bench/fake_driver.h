#pragma once

// A CUDA driver table for benchmarks on machines without a GPU: every call succeeds at once.
// cuCtxGetCurrent returns one fixed context, the device is an sm_90 with H100-like limits,
// modules "load", and cuLaunchKernel does nothing but return CUDA_SUCCESS. The functions live in
// their own translation unit so that no call through the table can be inlined.

#include <cuda.h>

#include <cstdint>

#include "cuda/driver_api.h"

namespace triton_jit_bench {

// The table of do-nothing functions (filled on first use).
const triton_jit::cuda::DriverApi& fake_driver();

// The fake function handle ModuleGetFunction hands out.
CUfunction fake_function();

// A table like fake_driver() whose cuLaunchKernel records what it was given (for checking that
// a launch packs what the raw baseline passes).
struct RecordedLaunch {
  int calls = 0;
  CUfunction function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  CUstream stream = nullptr;
  int num_params = 0;        // how many entries of kernelParams the caller said it passed (see below)
  uint64_t values[80] = {};  // first 8 bytes behind each kernelParams entry
};
const triton_jit::cuda::DriverApi& recording_driver(int expected_params);
const RecordedLaunch& last_recorded_launch();

// Fake device addresses: 256-byte aligned like cudaMalloc's, never dereferenced.
inline float* fake_device_buffer(int index) {
  return reinterpret_cast<float*>(static_cast<uintptr_t>(0x7f0000000000ull + 0x100000ull * (index + 1)));
}

}  // namespace triton_jit_bench
