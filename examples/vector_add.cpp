// Adds two vectors with a Triton kernel called from C++.
//
// With a GPU: allocates device memory, launches add_kernel and checks the result on the host.
// Without one: compiles the kernel for the default target (cuda:90, or TRITON_JIT_TARGET) and
// prints what it would launch.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "triton_jit/triton_jit.h"

#ifndef EXAMPLE_KERNELS_DIR
#define EXAMPLE_KERNELS_DIR "examples/kernels"
#endif

namespace {

constexpr int kBlock = 1024;

// The CUDA runtime loads the driver at run time too, so this runs on machines without one.
bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace

int run() {
  using triton_jit::LaunchConfig;
  auto& add = triton_jit::TritonJitFunction::get(EXAMPLE_KERNELS_DIR "/vector_add.py", "add_kernel");
  std::printf("%s in %s, parameters:\n%s", add.name().c_str(), add.path().c_str(), add.signature().to_string().c_str());

  const int n = 98432;
  const LaunchConfig config{{(n + kBlock - 1) / kBlock}, /*num_warps=*/4};

  if (!gpu_present()) {
    std::printf("No GPU is present (no CUDA driver or device): compiling only.\n");
    const float* fake = reinterpret_cast<const float*>(uintptr_t{1} << 20);  // any 16-byte aligned address
    // The same arguments as the launch below: the key it would use, and the kernel it would run.
    const auto spec = add.specialize(config, fake, fake, fake, n, kBlock);
    const triton_jit::KernelInfo& k = add.compile(config, fake, fake, fake, n, kBlock);
    std::printf("would launch %s [%s] for %s: grid (%lld, 1, 1), %d warps x %d threads, %d bytes shared memory, "
                "%zu-byte cubin\n",
                k.name.c_str(), spec.signature().c_str(), k.target.str().c_str(), static_cast<long long>(config.grid.x),
                k.num_warps, k.target.warp_size, k.shared, k.cubin.size());
    return 0;
  }

  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = std::sin(0.001f * i);
    y[i] = std::cos(0.002f * i);
  }
  float *dx, *dy, *dout;
  const size_t bytes = n * sizeof(float);
  if (cudaMalloc(&dx, bytes) || cudaMalloc(&dy, bytes) || cudaMalloc(&dout, bytes) ||
      cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice) ||
      cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice)) {
    std::fprintf(stderr, "CUDA memory setup failed\n");
    return 1;
  }
  // The CUDA runtime made device 0's primary context current; the launch uses it.
  add(config, dx, dy, dout, n, kBlock);
  if (cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::fprintf(stderr, "copying the result back failed\n");
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != x[i] + y[i];
  std::printf("launched add_kernel over %d elements: %s (%d wrong)\n", n, wrong ? "FAILED" : "correct", wrong);
  return wrong ? 1 : 0;
}

int main() {
  try {
    return run();
  } catch (const triton_jit::Error& e) {
    std::fprintf(stderr, "vector_add: %s\n", e.what());
    return 1;
  }
}
