// Time from process start to the first completed launch of FILE:scaled_add (out = x + 2y).
// bench/first_launch.py runs it in fresh processes against a cold cache, a warm kernel index and
// a kernel pack, and measures each process from outside too (library loading included).
// Prints: main_to_done_ms=... get_ms=... launch_ms=... compiles=... index_hits=... pack_hits=...
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

#include "triton_jit/triton_jit.h"

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  if (argc != 2) {
    std::fprintf(stderr, "usage: first_launch FILE\n");
    return 2;
  }
  constexpr int n = 1 << 20;
  float *x = nullptr, *y = nullptr, *out = nullptr;
  if (cudaMalloc(&x, n * 4) != cudaSuccess || cudaMalloc(&y, n * 4) != cudaSuccess ||
      cudaMalloc(&out, n * 4) != cudaSuccess) {
    std::fprintf(stderr, "first_launch: no GPU\n");
    return 1;
  }
  const auto t_cuda = clock::now();
  try {
    auto& fn = triton_jit::TritonJitFunction::get(argv[1], "scaled_add");
    const auto t_get = clock::now();
    fn(triton_jit::LaunchConfig{triton_jit::Grid(n / 1024)}, x, y, out, n, 1024);
    cudaDeviceSynchronize();
    const auto t_done = clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    const triton_jit::Stats s = fn.stats();
    std::printf("main_to_done_ms=%.2f cuda_init_ms=%.2f get_ms=%.2f launch_ms=%.2f compiles=%llu index_hits=%llu "
                "pack_hits=%llu python_used=%d\n",
                ms(t0, t_done), ms(t0, t_cuda), ms(t_cuda, t_get), ms(t_get, t_done),
                static_cast<unsigned long long>(s.compiles), static_cast<unsigned long long>(s.index_hits),
                static_cast<unsigned long long>(s.pack_hits), triton_jit::python_used() ? 1 : 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "first_launch: %s\n", e.what());
    return 1;
  }
  return 0;
}
