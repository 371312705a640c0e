// What a real launch hands the kernel: scalar arguments of every width (read back by the kernel),
// 3-D grids up to the device's limits, cooperative and programmatic-dependent launches
// (cuLaunchKernelEx attributes), and the per-thread default stream.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "support/launch_metadata.h"

namespace {

using namespace gpu_test;
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::CompileOptions;
using triton_jit::KernelInfo;
using triton_jit::LaunchConfig;
using triton_jit::to_arg;
using triton_jit::TritonJitFunction;

class GpuLaunchArgs : public GpuTest {};

struct Echo {
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

// Runs echo_scalars_kernel and returns what it stored.
Echo echo(int32_t i32_neg, int64_t i64_big, uint64_t u64_big, bool flag, double f32_val, double h_val, double bf_val,
          double d_val, int u8_val, int i16_val) {
  auto& fn = TritonJitFunction::get(kernel_path("scalars.py"), "echo_scalars_kernel");
  DeviceBuffer<int64_t> ints(6);
  DeviceBuffer<double> floats(4);
  ints.poison();
  floats.poison();
  fn(LaunchConfig{{1}, 1}, ints.get(), floats.get(), i32_neg, i64_big, u64_big, flag, f32_val, h_val, bf_val, d_val,
     u8_val, i16_val);
  CUDA_CHECK(cudaDeviceSynchronize());
  return Echo{ints.download(), floats.download()};
}

TEST_F(GpuLaunchArgs, ScalarArgumentsArriveExactly) {
  const int64_t big = (int64_t{1} << 40) + 12345;
  const uint64_t ubig = 0xFFFFFFFFFFFFFFFDull;  // above INT64_MAX: a u64 parameter
  const Echo e = echo(-123456789, big, ubig, true, -0.1, 0.25, 3.0, 1e300, 200, -300);
  const int64_t want_ints[] = {-123456789, big, -3 /* ubig's bits */, 1, 200, -300};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(e.ints[i], want_ints[i]) << "integer slot " << i;
  EXPECT_EQ(e.floats[0], static_cast<double>(static_cast<float>(-0.1))) << "fp32 parameter";
  EXPECT_EQ(e.floats[1], 0.25) << "fp16 parameter";
  EXPECT_EQ(e.floats[2], 3.0) << "bf16 parameter";
  EXPECT_EQ(e.floats[3], 1e300) << "fp64 parameter";
}

// Python's launcher (triton/backends/nvidia/driver.py, pack_fp16) packs an fp16 scalar with
// PyFloat_Pack2: rounded once, from the double. A C++ call must hand the kernel the same bits.
TEST_F(GpuLaunchArgs, Fp16ScalarRoundedOnceLikeTritonsLauncher) {
  // 1 + 2^-11 + 2^-40: above the midpoint between two halves, but exactly on it once rounded to float.
  const double h = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  const double want = half_to_float(double_to_half(h));  // 1 + 2^-10
  // Integers as in the test above: an unannotated 0 would specialize i32, and the u64 bitcast would not compile.
  const Echo e = echo(-1, (int64_t{1} << 40) + 1, 0xFFFFFFFFFFFFFFFDull, false, 0.0, h, 1.0, 0.0, 0, 0);
  EXPECT_EQ(e.floats[1], want) << "fp16 scalar " << fmt(h) << ": Triton passes " << fmt(want)
                               << " (rounded once from the double), not the double rounding through float";
}

// pack_bf16 in the same launcher truncates: (uint16_t)(bits(float(f)) >> 16), no rounding.
TEST_F(GpuLaunchArgs, Bf16ScalarTruncatedLikeTritonsLauncher) {
  for (double bf : {0.1, -0.1, 1.0 / 3.0, 1.0 + 3.0 / 256.0}) {
    const float f = static_cast<float>(bf);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const double want = bf16_to_float(static_cast<uint16_t>(bits >> 16));
    const Echo e = echo(-1, (int64_t{1} << 40) + 1, 0xFFFFFFFFFFFFFFFDull, false, 0.0, 1.0, bf, 0.0, 0, 0);
    EXPECT_EQ(e.floats[2], want) << "bf16 scalar " << fmt(bf) << ": Triton passes " << fmt(want)
                                 << " (the float's upper 16 bits), not the rounded " << fmt(e.floats[2]);
  }
}

// Every program of a 3-D grid runs once and sees the grid's shape: x beyond 65535, y and z at
// their limits' order of magnitude.
TEST_F(GpuLaunchArgs, ThreeDimensionalGrids) {
  auto& fn = TritonJitFunction::get(kernel_path("scalars.py"), "grid_ids_kernel");
  const int max_y = device_attribute(cudaDevAttrMaxGridDimY);
  const int max_z = device_attribute(cudaDevAttrMaxGridDimZ);
  const triton_jit::Grid grids[] = {triton_jit::Grid(37, 19, 5), triton_jit::Grid(70001), triton_jit::Grid(3, max_y, 1),
                                    triton_jit::Grid(2, 3, max_z)};
  for (const triton_jit::Grid& g : grids) {
    const size_t programs = static_cast<size_t>(g.x * g.y * g.z);
    SCOPED_TRACE("grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " + std::to_string(g.z) + ")");
    DeviceBuffer<int64_t> out(programs + 64);
    out.poison();
    LaunchConfig config;
    config.grid = g;
    config.num_warps = 1;
    fn(config, out.get());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<int64_t> got = out.download();
    Mismatches bad("grid_ids_kernel");
    for (size_t i = 0; i < programs; ++i) {
      if (got[i] != static_cast<int64_t>(i)) bad.add(i, std::to_string(got[i]));
    }
    for (size_t i = programs; i < got.size(); ++i) {
      if (got[i] != -1) bad.add(i, "beyond the grid: " + std::to_string(got[i]));
    }
    EXPECT_EQ(bad.count(), 0u) << bad.report(got.size());
  }
}

TEST_F(GpuLaunchArgs, CooperativeGridLaunch) {
  if (!device_attribute(cudaDevAttrCooperativeLaunch)) GTEST_SKIP() << "the device has no cooperative launch";
  auto& fn = TritonJitFunction::get(kernel_path("scalars.py"), "grid_ids_kernel");
  static const CompileOptions options{{"launch_cooperative_grid", true}};
  LaunchConfig config{{8, 2}, 4};
  config.options = &options;
  const ArgValue probe[] = {to_arg(static_cast<int64_t*>(nullptr))};
  const KernelInfo& info = fn.compile(config, ArgSpan{probe, 1});
  EXPECT_TRUE(triton_jit::test::launch_metadata(info).launch_cooperative_grid);
  DeviceBuffer<int64_t> out(16 + 16);
  out.poison();
  fn(config, out.get());
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<int64_t> got = out.download();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], i < 16 ? static_cast<int64_t>(i) : -1) << "slot " << i;
}

// A chain of launches with launch_pdl: each kernel may start before the previous one ends and
// waits (griddepcontrol.wait) before reading; the chain's result must be exact.
TEST_F(GpuLaunchArgs, ProgrammaticDependentLaunchChain) {
  const int arch = device_arch();
  if (arch < 90) GTEST_SKIP() << "programmatic dependent launch needs sm_90 or newer; the device is sm_" << arch;
  constexpr int kLaunches = 40, kBlock = 1024;
  const size_t n = 1000003;
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> dist(-50, 50);
  std::vector<float> x(n), acc(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(dist(rng));
    acc[i] = static_cast<float>(dist(rng));
  }
  DeviceBuffer<float> dx(n), dacc(n);
  dx.upload(x);
  dacc.upload(acc);
  auto& fn = TritonJitFunction::get(kernel_path("elementwise.py"), "axpy_pdl_kernel");
  static const CompileOptions options{{"launch_pdl", true}};
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  LaunchConfig config{{cdiv(n, kBlock)}, 4, 3, 1, stream};
  config.options = &options;
  const ArgValue probe[] = {to_arg(dacc.get()), to_arg(dx.get()), to_arg(1.0f), to_arg(static_cast<int64_t>(n)),
                            to_arg(kBlock)};
  EXPECT_TRUE(triton_jit::test::launch_metadata(fn.compile(config, ArgSpan{probe, 5})).launch_pdl);
  for (int i = 0; i < kLaunches; ++i) {
    fn(config, dacc.get(), dx.get(), static_cast<float>(i % 3), static_cast<int64_t>(n), kBlock);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  float total_alpha = 0;
  for (int i = 0; i < kLaunches; ++i) total_alpha += static_cast<float>(i % 3);
  const std::vector<float> got = dacc.download();
  Mismatches bad("axpy_pdl_kernel chain");
  for (size_t i = 0; i < n; ++i) {
    const float want = acc[i] + total_alpha * x[i];
    if (!(got[i] == want)) bad.add(i, fmt(got[i]) + ", want " + fmt(want));
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(n);
}

// cudaStreamPerThread is a valid driver stream handle (CU_STREAM_PER_THREAD): launches and
// stream-ordered scratch use it as they would any stream.
TEST_F(GpuLaunchArgs, PerThreadDefaultStream) {
  const size_t n = 77777;
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(dist(rng));
    y[i] = static_cast<float>(dist(rng));
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.upload(x);
  dy.upload(y);
  dout.poison();
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  add(LaunchConfig{{cdiv(n, 1024)}, 4, 3, 1, cudaStreamPerThread}, dx.get(), dy.get(), dout.get(),
      static_cast<int64_t>(n), 1024);
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  const std::vector<float> out = dout.download();
  Mismatches bad("add_kernel on cudaStreamPerThread");
  for (size_t i = 0; i < n; ++i) {
    if (!(out[i] == x[i] + y[i])) bad.add(i, fmt(out[i]) + ", want " + fmt(x[i] + y[i]));
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(n);

  if (device_arch() >= 90) {  // a kernel with global scratch, allocated on the per-thread stream
    constexpr int M = 64, N = 64;
    DeviceBuffer<float> a(M * N), b(M * N);
    std::vector<float> av(M * N);
    for (auto& v : av) v = static_cast<float>(dist(rng));
    a.upload(av);
    b.poison();
    auto& fn = TritonJitFunction::get(kernel_path("tensor_descriptor.py"), "scale_shift_2d_kernel");
    fn(LaunchConfig{{2, 2}, 4, 3, 1, cudaStreamPerThread}, a.get(), b.get(), M, N, 2.0f, 1.0f, 32, 32);
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    const std::vector<float> bv = b.download();
    Mismatches bad2("scale_shift_2d_kernel on cudaStreamPerThread");
    for (int i = 0; i < M * N; ++i) {
      if (!(bv[i] == 2 * av[i] + 1)) bad2.add(i, fmt(bv[i]) + ", want " + fmt(2 * av[i] + 1));
    }
    EXPECT_EQ(bad2.count(), 0u) << bad2.report(M * N);
  }
}

}  // namespace
