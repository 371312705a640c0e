// The autotuner's timing and device-memory layer (src/decorators/) on a real GPU: a vector add
// timed the way Triton's do_bench times it, and reset_to_zero/restore_value around a kernel that
// accumulates into its output.
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "decorators/benchmark.h"
#include "cuda/device_memory.h"
#include "gpu_test_util.h"

namespace {

using namespace gpu_test;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;
using triton_jit::detail::benchmark;
using triton_jit::detail::BenchmarkOptions;
using triton_jit::detail::BenchmarkResult;
using triton_jit::detail::Range;
using triton_jit::detail::wrap_for_tuning;

constexpr int kBlock = 1024;

class GpuBenchmark : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  CUstream stream() const { return reinterpret_cast<CUstream>(stream_); }

  cudaStream_t stream_ = nullptr;
};

std::vector<float> iota_values(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) * scale;
  return v;
}

TEST_F(GpuBenchmark, VectorAddBiggerIsSlower) {
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  const size_t big = size_t{1} << 24, small = size_t{1} << 20;
  DeviceBuffer<float> x(big), y(big), out(big);
  x.upload(iota_values(big, 0.5f));
  y.upload(iota_values(big, 0.25f));

  auto time_add = [&](size_t n) {
    const LaunchConfig config{{static_cast<int64_t>(cdiv(n, kBlock))}, 4, 3, 1, stream_};
    return benchmark(
        stream(), [&] { add(config, x.get(), y.get(), out.get(), static_cast<int32_t>(n), kBlock); },
        BenchmarkOptions{});
  };
  const BenchmarkResult r_small = time_add(small);
  const BenchmarkResult r_big = time_add(big);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (const BenchmarkResult* r : {&r_small, &r_big}) {
    EXPECT_GT(r->median_ms, 0.0);
    EXPECT_GT(r->runs, 0);
    EXPECT_LE(r->p20_ms, r->median_ms);
    EXPECT_LE(r->median_ms, r->p80_ms);
  }
  // 2^24 fp32 elements: 192 MiB moved per launch, 16 times the small one's.
  EXPECT_GT(r_big.median_ms, r_small.median_ms);
  std::printf("add_kernel 2^20: median %.4f ms (p20 %.4f, p80 %.4f, %d runs); 2^24: median %.4f ms (p20 %.4f, "
              "p80 %.4f, %d runs)\n",
              r_small.median_ms, r_small.p20_ms, r_small.p80_ms, r_small.runs, r_big.median_ms, r_big.p20_ms,
              r_big.p80_ms, r_big.runs);

  // The launches did their work: out = x + y.
  const std::vector<float> got = out.download();
  const std::vector<float> xs = iota_values(big, 0.5f), ys = iota_values(big, 0.25f);
  size_t wrong = 0;
  for (size_t i = 0; i < big; i += 4099) wrong += got[i] != xs[i] + ys[i];
  EXPECT_EQ(wrong, 0u);
}

// axpy_inplace_kernel accumulates (acc += alpha * x): restored, `kept` ends as it began however
// many runs the benchmark made; reset to zero, `fresh` ends as one run's alpha * x.
TEST_F(GpuBenchmark, ResetToZeroAndRestoreValue) {
  auto& axpy = TritonJitFunction::get(kernel_path("elementwise.py"), "axpy_inplace_kernel");
  const size_t n = (size_t{1} << 20) + 3;
  DeviceBuffer<float> x(n), kept(n), fresh(n);
  const std::vector<float> xs = iota_values(n, 1.0f), original = iota_values(n, -3.0f);
  x.upload(xs);
  kept.upload(original);
  fresh.upload(original);
  const float alpha = 2.0f;
  const LaunchConfig config{{static_cast<int64_t>(cdiv(n, kBlock))}, 4, 3, 1, stream_};
  int launches = 0;
  auto launch = [&] {
    axpy(config, kept.get(), x.get(), alpha, static_cast<int32_t>(n), kBlock);
    axpy(config, fresh.get(), x.get(), alpha, static_cast<int32_t>(n), kBlock);
    ++launches;
  };
  const std::vector<Range> reset = {{reinterpret_cast<uint64_t>(fresh.get()), fresh.bytes()}};
  const std::vector<Range> restore = {{reinterpret_cast<uint64_t>(kept.get()), kept.bytes()}};
  const BenchmarkResult r = benchmark(stream(), wrap_for_tuning(launch, reset, restore, stream()), BenchmarkOptions{});
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  EXPECT_GT(r.runs, 0);
  EXPECT_GT(r.median_ms, 0.0);
  EXPECT_GT(launches, 7);

  EXPECT_EQ(kept.download(), original);
  const std::vector<float> got = fresh.download();
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += got[i] != 0.0f + alpha * xs[i];
  EXPECT_EQ(wrong, 0u) << "fresh is not one run's alpha * x";
}

TEST_F(GpuBenchmark, DeviceBufferAndCopies) {
  triton_jit::detail::DeviceBuffer a(4096), b(4096);
  ASSERT_TRUE(a);
  std::vector<uint8_t> pattern(4096);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 13 + 5);
  CUDA_CHECK(cudaMemcpy(reinterpret_cast<void*>(a.address()), pattern.data(), 4096, cudaMemcpyHostToDevice));
  triton_jit::detail::copy_async(stream(), b.address(), a.address(), 4096);
  triton_jit::detail::zero_async(stream(), a.address() + 1, 10);  // unaligned: the byte memset
  triton_jit::detail::zero_async(stream(), a.address() + 64, 128);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<uint8_t> ga(4096), gb(4096);
  CUDA_CHECK(cudaMemcpy(ga.data(), reinterpret_cast<void*>(a.address()), 4096, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gb.data(), reinterpret_cast<void*>(b.address()), 4096, cudaMemcpyDeviceToHost));
  EXPECT_EQ(gb, pattern);
  std::vector<uint8_t> want = pattern;
  std::fill(want.begin() + 1, want.begin() + 11, 0);
  std::fill(want.begin() + 64, want.begin() + 192, 0);
  EXPECT_EQ(ga, want);
}

}  // namespace
