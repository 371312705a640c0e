// Several GPUs: each device loads its own module, and a launch uses the function of the current
// context's device. Skipped with a visible reason on machines with fewer than two GPUs.
#include <cuda_runtime.h>

#include <vector>

#include "gpu_test_util.h"

namespace {

using gpu_test::add_kernel_path;
using gpu_test::fresh_copy;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

class MultiGpu : public gpu_test::GpuTest {
 protected:
  void SetUp() override {
    gpu_test::GpuTest::SetUp();
    if (IsSkipped()) return;
    CUDA_CHECK(cudaGetDeviceCount(&devices_));
    if (devices_ < 2) GTEST_SKIP() << "needs two CUDA GPUs, this machine has " << devices_;
  }
  void TearDown() override { cudaSetDevice(0); }
  int devices_ = 0;
};

TEST_F(MultiGpu, EachDeviceLoadsItsOwnModuleAndComputesOnItsOwnData) {
  // A function of its own: device 0 may hold add_kernel's module from earlier tests in this process.
  auto& add = TritonJitFunction::get(fresh_copy(add_kernel_path()), "add_kernel");
  const int n = 100003;
  const triton_jit::Stats before = add.stats();
  for (int round = 0; round < 2; ++round) {
    for (int d = 0; d < devices_; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      std::vector<float> x(n), y(n), out(n, -7.0f);
      for (int i = 0; i < n; ++i) {
        x[i] = static_cast<float>((i * 7 + d) % 101);
        y[i] = static_cast<float>(d * 1000 + round);
      }
      float *dx = nullptr, *dy = nullptr, *dout = nullptr;
      CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
      CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
      CUDA_CHECK(cudaMalloc(&dout, n * sizeof(float)));
      CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(dout, out.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      add(LaunchConfig{{(n + 1023) / 1024}}, dx, dy, dout, n, 1024);
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
      int wrong = 0;
      for (int i = 0; i < n; ++i) wrong += out[i] != x[i] + y[i];
      EXPECT_EQ(wrong, 0) << "device " << d << ", round " << round;
      cudaFree(dx);
      cudaFree(dy);
      cudaFree(dout);
    }
  }
  const triton_jit::Stats after = add.stats();
  // One specialization (same arch everywhere), one module per device, loaded once.
  EXPECT_LE(after.compiles - before.compiles, 1u);
  EXPECT_EQ(after.loads - before.loads, static_cast<uint64_t>(devices_));
  std::printf("multi-GPU: %d devices, %llu module loads\n", devices_,
              static_cast<unsigned long long>(after.loads - before.loads));
}

}  // namespace
