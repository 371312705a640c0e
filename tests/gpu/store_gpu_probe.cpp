// A process of its own for the GPU store tests (store_test.cpp): launches FILE:scaled_add
// (out = x + 2y) on the GPU, checks the result on the host and prints
//   correct=1 compiles=0 index_hits=1 pack_hits=0 tunings=0 python_used=0
// or `error=...` (exit 3). FILE need not exist when a pack (TRITON_JIT_PACKS) holds the kernel.
// With `tuned`, it launches FILE:scale_kernel instead (tests/kernels/decorated.py: heuristics over
// an autotuner keyed by n; out = 2x, the grid from the chosen BLOCK).
#include <cuda_runtime.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

int main(int argc, char** argv) {
  const bool tuned = argc == 3 && std::string(argv[2]) == "tuned";
  if (argc != 2 && !tuned) {
    std::cerr << "usage: store_gpu_probe FILE [tuned]\n";
    return 2;
  }
  try {
    constexpr int n = 100000;
    std::vector<float> x(n), y(n), out(n, -1.0f);
    for (int i = 0; i < n; ++i) {
      x[i] = 0.25f * static_cast<float>(i % 977);
      y[i] = -0.5f * static_cast<float>(i % 613);
    }
    float *dx = nullptr, *dy = nullptr, *dout = nullptr;
    if (cudaMalloc(&dx, n * 4) != cudaSuccess || cudaMalloc(&dy, n * 4) != cudaSuccess ||
        cudaMalloc(&dout, n * 4) != cudaSuccess) {
      std::cout << "error=cudaMalloc failed" << std::endl;
      return 3;
    }
    cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * 4, cudaMemcpyHostToDevice);
    auto& fn = triton_jit::TritonJitFunction::get(argv[1], tuned ? "scale_kernel" : "scaled_add");
    int wrong = 0;
    if (tuned) {
      triton_jit::LaunchConfig config;
      config.grid_fn = [](const triton_jit::GridMeta& meta) {
        return triton_jit::Grid(triton_jit::cdiv(n, meta["BLOCK"]));
      };
      // Sizes given: the tuning's timed runs write dout, which the launch after it overwrites.
      fn(config, triton_jit::TypedPtr{dx, triton_jit::DType::fp32, n * 4},
         triton_jit::TypedPtr{dout, triton_jit::DType::fp32, n * 4}, n, 2.0f);
      cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
      for (int i = 0; i < n; ++i) wrong += out[i] != 2.0f * x[i];
    } else {
      fn(triton_jit::LaunchConfig{triton_jit::Grid((n + 1023) / 1024)}, dx, dy, dout, n, 1024);
      cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
      for (int i = 0; i < n; ++i) wrong += out[i] != x[i] + 2.0f * y[i];
    }
    const triton_jit::Stats s = fn.stats();
    std::cout << "correct=" << (wrong == 0) << " compiles=" << s.compiles << " index_hits=" << s.index_hits
              << " pack_hits=" << s.pack_hits << " tunings=" << s.tunings
              << " python_used=" << triton_jit::python_used() << std::endl;
  } catch (const std::exception& e) {
    std::cout << "error=" << e.what() << "\npython_used=" << triton_jit::python_used() << std::endl;
    return 3;
  }
  return 0;
}
