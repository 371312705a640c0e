// The floor for bench/first_launch.cpp: the same first launch with no runtime, straight from a
// cubin file through the driver API (module load, get function, launch, synchronize).
// Usage: first_launch_raw CUBIN KERNEL_NAME NUM_WARPS
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  if (argc != 4) {
    std::fprintf(stderr, "usage: first_launch_raw CUBIN KERNEL_NAME NUM_WARPS\n");
    return 2;
  }
  constexpr int n = 1 << 20;
  float *x = nullptr, *y = nullptr, *out = nullptr;
  if (cudaMalloc(&x, n * 4) != cudaSuccess || cudaMalloc(&y, n * 4) != cudaSuccess ||
      cudaMalloc(&out, n * 4) != cudaSuccess) {
    std::fprintf(stderr, "first_launch_raw: no GPU\n");
    return 1;
  }
  const auto t_cuda = clock::now();
  std::ifstream in(argv[1], std::ios::binary);
  const std::string cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CUmodule module;
  CUfunction function;
  if (cuModuleLoadData(&module, cubin.data()) != CUDA_SUCCESS ||
      cuModuleGetFunction(&function, module, argv[2]) != CUDA_SUCCESS) {
    std::fprintf(stderr, "first_launch_raw: cannot load %s from %s\n", argv[2], argv[1]);
    return 1;
  }
  int count = n;
  void* scratch = nullptr;  // Triton's global and profile scratch parameters, unused here
  void* params[] = {&x, &y, &out, &count, &scratch, &scratch};
  const unsigned threads = 32u * static_cast<unsigned>(std::atoi(argv[3]));
  if (cuLaunchKernel(function, n / 1024, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr) != CUDA_SUCCESS) {
    std::fprintf(stderr, "first_launch_raw: launch failed\n");
    return 1;
  }
  cudaDeviceSynchronize();
  const auto t_done = clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("main_to_done_ms=%.2f cuda_init_ms=%.2f\n", ms(t0, t_done), ms(t0, t_cuda));
  return 0;
}
