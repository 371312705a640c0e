// Kernels beyond element-wise: a row softmax, a tl.dot matmul whose tile needs more than 48 KiB of
// shared memory, a launch with num_ctas=2 (clusters, sm_90+) and a kernel that needs global
// scratch (device-side TMA descriptors). Every element is compared with a host reference.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "support/launch_metadata.h"

namespace {

using namespace gpu_test;

class GpuKernels : public GpuTest {};
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::KernelInfo;
using triton_jit::LaunchConfig;
using triton_jit::to_arg;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

// ---------------------------------------------------------------------------------------------
// Row softmax: odd row length, padded strides (different for input and output), 37 rows.

TEST_F(GpuKernels, RowSoftmaxOddRowLength) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  const int rows = 37, cols = 781, in_stride = 800, out_stride = 789, block = 1024;

  std::vector<float> in(static_cast<size_t>(rows) * in_stride);
  for (float& v : in) v = dist(rng);
  DeviceBuffer<float> din(in.size()), dout(static_cast<size_t>(rows) * out_stride + 16);
  din.upload(in);
  dout.poison();

  auto& softmax = TritonJitFunction::get(kernel_path("softmax.py"), "softmax_kernel");
  softmax(LaunchConfig{{rows}, 4}, dout.get(), din.get(), in_stride, out_stride, cols, block);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> out = dout.download();

  Mismatches bad("softmax_kernel");
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY;
    for (int c = 0; c < cols; ++c) mx = std::max(mx, static_cast<double>(in[r * in_stride + c]));
    double den = 0;
    for (int c = 0; c < cols; ++c) den += std::exp(in[r * in_stride + c] - mx);
    for (int c = 0; c < cols; ++c) {
      const double want = std::exp(in[r * in_stride + c] - mx) / den;
      const float got = out[static_cast<size_t>(r) * out_stride + c];
      if (!close(got, want, 1e-7, 1e-5)) {
        bad.add(static_cast<size_t>(r) * cols + c,
                "row " + std::to_string(r) + " col " + std::to_string(c) + ": " + fmt(got) + ", want " + fmt(want));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(static_cast<size_t>(rows) * cols);

  // Padding between rows and after the last row keeps the poison (NaN).
  size_t touched = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t c = i % out_stride;
    if (i < static_cast<size_t>(rows) * out_stride && c < static_cast<size_t>(cols)) continue;
    touched += !std::isnan(out[i]);
  }
  EXPECT_EQ(touched, 0u) << "softmax_kernel wrote into the row padding";
}

// ---------------------------------------------------------------------------------------------
// Matmul: 128x128x64 fp16 tiles with 3 and 4 stages need 96 and 128 KiB of shared memory, so the
// loader must opt in above 48 KiB. Sizes are not multiples of the tile.

struct MatmulProblem {
  int M, N, K;
  std::vector<uint16_t> a, b;  // fp16 bits, row-major
  std::vector<double> ref;     // exact-ish fp64 reference of the fp16 inputs
};

MatmulProblem make_matmul(int M, int N, int K, std::mt19937_64& rng) {
  MatmulProblem p{M, N, K, {}, {}, {}};
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  p.a.resize(static_cast<size_t>(M) * K);
  p.b.resize(static_cast<size_t>(K) * N);
  for (auto& v : p.a) v = double_to_half(dist(rng));
  for (auto& v : p.b) v = double_to_half(dist(rng));
  std::vector<double> af(p.a.size()), bf(p.b.size());
  for (size_t i = 0; i < af.size(); ++i) af[i] = half_to_float(p.a[i]);
  for (size_t i = 0; i < bf.size(); ++i) bf[i] = half_to_float(p.b[i]);
  p.ref.assign(static_cast<size_t>(M) * N, 0.0);
  for (int m = 0; m < M; ++m) {
    for (int k = 0; k < K; ++k) {
      const double a = af[static_cast<size_t>(m) * K + k];
      const double* brow = &bf[static_cast<size_t>(k) * N];
      double* crow = &p.ref[static_cast<size_t>(m) * N];
      for (int n = 0; n < N; ++n) crow[n] += a * brow[n];
    }
  }
  return p;
}

void check_matmul(const MatmulProblem& p, const std::vector<float>& c, const std::string& what) {
  Mismatches bad(what);
  for (size_t i = 0; i < p.ref.size(); ++i) {
    if (!close(c[i], p.ref[i], 2e-3, 2e-3)) {
      bad.add(i, "(" + std::to_string(i / p.N) + ", " + std::to_string(i % p.N) + "): " + fmt(c[i]) + ", want " +
                     fmt(p.ref[i]));
    }
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(p.ref.size());
}

TEST_F(GpuKernels, MatmulTileNeedsMoreThan48KiBSharedMemory) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // K and N are multiples of 16 so the strides specialize as divisible and the loads pipeline.
  const MatmulProblem p = make_matmul(300, 272, 208, rng);
  DeviceBuffer<uint16_t> da(p.a.size()), db(p.b.size());
  DeviceBuffer<float> dc(p.ref.size());
  da.upload(p.a);
  db.upload(p.b);
  const int max_optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);

  auto& mm = TritonJitFunction::get(kernel_path("matmul.py"), "matmul_kernel");
  constexpr int BM = 128, BN = 128, BK = 64;
  const ArgValue args[] = {to_arg(TypedPtr{da.get(), DType::fp16}),
                           to_arg(TypedPtr{db.get(), DType::fp16}),
                           to_arg(dc.get()),
                           to_arg(p.M),
                           to_arg(p.N),
                           to_arg(p.K),
                           to_arg(p.K),
                           to_arg(1),
                           to_arg(p.N),
                           to_arg(1),
                           to_arg(p.N),
                           to_arg(1),
                           to_arg(BM),
                           to_arg(BN),
                           to_arg(BK)};
  const ArgSpan span{args, sizeof args / sizeof args[0]};
  for (int stages : {3, 4}) {
    SCOPED_TRACE("num_stages=" + std::to_string(stages));
    const LaunchConfig config{{cdiv(p.M, BM), cdiv(p.N, BN)}, 8, stages};
    const KernelInfo& info = mm.compile(config, span);
    std::printf("matmul 128x128x64 num_stages=%d: %d bytes of shared memory (device opt-in limit %d), %s\n", stages,
                info.shared, max_optin, mm.specialize(config, span).signature().c_str());
    EXPECT_GT(info.shared, 49152) << "the tile should need the opt-in shared memory";
    if (info.shared > max_optin) {
      ADD_FAILURE() << "the tile needs " << info.shared << " bytes but the device allows " << max_optin;
      continue;
    }
    const triton_jit::Stats before = mm.stats();
    dc.poison();
    mm.launch(config, span);
    CUDA_CHECK(cudaDeviceSynchronize());
    const triton_jit::Stats after = mm.stats();
    EXPECT_EQ(after.hits - before.hits, 1u) << "compile() cached the kernel, so the launch is a hit";
    EXPECT_EQ(after.compiles, before.compiles);
    check_matmul(p, dc.download(), "matmul num_stages=" + std::to_string(stages));
  }
}

// A tile whose shared memory is over the device's limit: LaunchConfigError, not a CUDA error.
TEST_F(GpuKernels, MatmulTileOverSharedMemoryLimitIsLaunchConfigError) {
  const int M = 256, N = 256, K = 128;
  DeviceBuffer<uint16_t> da(static_cast<size_t>(M) * K), db(static_cast<size_t>(K) * N);
  DeviceBuffer<float> dc(static_cast<size_t>(M) * N);
  auto& mm = TritonJitFunction::get(kernel_path("matmul.py"), "matmul_kernel");
  const ArgValue args[] = {to_arg(TypedPtr{da.get(), DType::fp16}),
                           to_arg(TypedPtr{db.get(), DType::fp16}),
                           to_arg(dc.get()),
                           to_arg(M),
                           to_arg(N),
                           to_arg(K),
                           to_arg(K),
                           to_arg(1),
                           to_arg(N),
                           to_arg(1),
                           to_arg(N),
                           to_arg(1),
                           to_arg(128),
                           to_arg(256),
                           to_arg(64)};
  const ArgSpan span{args, sizeof args / sizeof args[0]};
  const LaunchConfig config{{cdiv(M, 128), cdiv(N, 256)}, 8, 5};
  const KernelInfo& info = mm.compile(config, span);
  const int max_optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  if (info.shared <= max_optin) {
    GTEST_SKIP() << "this device allows " << max_optin << " bytes per block, enough for the tile's " << info.shared;
  }
  try {
    mm.launch(config, span);
    ADD_FAILURE() << "launching a kernel needing " << info.shared << " bytes of shared memory did not throw";
  } catch (const triton_jit::LaunchConfigError& e) {
    std::printf("LaunchConfigError as expected: %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// num_ctas=2: launched through cuLaunchKernelEx with a cluster dimension (sm_90+).

TEST_F(GpuKernels, VectorAddWithTwoCtaClusters) {
  const int arch = device_arch();
  if (arch < 90) GTEST_SKIP() << "num_ctas > 1 needs sm_90 or newer; the device is sm_" << arch;
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  const int n = 1000003, block = 1024;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.upload(x);
  dy.upload(y);
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  const ArgValue args[] = {to_arg(dx.get()), to_arg(dy.get()), to_arg(dout.get()), to_arg(n), to_arg(block)};
  const ArgSpan span{args, 5};
  for (int ctas : {2, 1}) {
    SCOPED_TRACE("num_ctas=" + std::to_string(ctas));
    const LaunchConfig config{{cdiv(n, block)}, 4, 3, ctas};
    const KernelInfo& info = add.compile(config, span);
    EXPECT_EQ(info.num_ctas, ctas);
    dout.poison();
    add.launch(config, span);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> out = dout.download();
    Mismatches bad("add_kernel num_ctas=" + std::to_string(ctas));
    for (int i = 0; i < n; ++i) {
      if (!(out[i] == x[i] + y[i])) bad.add(i, fmt(out[i]) + ", want " + fmt(x[i] + y[i]));
    }
    EXPECT_EQ(bad.count(), 0u) << bad.report(n);
  }
}

// ---------------------------------------------------------------------------------------------
// Global scratch: tl.make_tensor_descriptor builds TMA descriptors in global scratch memory.

struct ScratchProblem {
  static constexpr int M = 300, N = 200, BM = 64, BN = 32;  // N * 4 bytes: a 16-byte multiple, as TMA needs
  static constexpr size_t kGuard = 256;
  std::vector<float> in;
  DeviceBuffer<float> din{static_cast<size_t>(M) * N};
  DeviceBuffer<float> dout{static_cast<size_t>(M) * N + kGuard};
  float scale = 2.5f, shift = -1.25f;

  explicit ScratchProblem(std::mt19937_64& rng) : in(static_cast<size_t>(M) * N) {
    std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
    for (float& v : in) v = dist(rng);
    din.upload(in);
    dout.poison();
  }
  LaunchConfig config() const { return LaunchConfig{{cdiv(M, BM), cdiv(N, BN)}, 4}; }
  int64_t programs() const { return static_cast<int64_t>(cdiv(M, BM) * cdiv(N, BN)); }
  std::vector<ArgValue> args(float* out = nullptr) const {
    return {to_arg(din.get()), to_arg(out ? out : dout.get()),
            to_arg(M),         to_arg(N),
            to_arg(scale),     to_arg(shift),
            to_arg(BM),        to_arg(BN)};
  }
  void check(const std::vector<float>& out, const std::string& what) const {
    Mismatches bad(what);
    for (size_t i = 0; i < in.size(); ++i) {
      const double want = static_cast<double>(in[i]) * scale + shift;
      if (!close(out[i], want, 1e-6, 1e-6)) bad.add(i, fmt(out[i]) + ", want " + fmt(want));
    }
    EXPECT_EQ(bad.count(), 0u) << bad.report(in.size());
    size_t touched = 0;
    for (size_t i = in.size(); i < out.size(); ++i) touched += !std::isnan(out[i]);
    EXPECT_EQ(touched, 0u) << what << ": the TMA store wrote past the tensor";
  }
};

TEST_F(GpuKernels, DeviceTensorDescriptorNeedsGlobalScratch) {
  const int arch = device_arch();
  if (arch < 90) GTEST_SKIP() << "device-side tensor descriptors (TMA) need sm_90 or newer; the device is sm_" << arch;
  std::mt19937_64 rng(test_seed());
  ScratchProblem p(rng);
  auto& fn = TritonJitFunction::get(kernel_path("tensor_descriptor.py"), "scale_shift_2d_kernel");
  const std::vector<ArgValue> args = p.args();
  const ArgSpan span{args.data(), args.size()};
  const KernelInfo& info = fn.compile(p.config(), span);
  std::printf("scale_shift_2d_kernel: global_scratch_size=%lld align=%lld, scratch params:",
              static_cast<long long>(triton_jit::test::launch_metadata(info).global_scratch_size),
              static_cast<long long>(triton_jit::test::launch_metadata(info).global_scratch_align));
  for (const auto& s : triton_jit::test::launch_metadata(info).scratch_params) std::printf(" %s", s.c_str());
  std::printf("\n");
  ASSERT_GT(triton_jit::test::launch_metadata(info).global_scratch_size, 0)
      << "the kernel should need global scratch for its TMA descriptors";
  fn.launch(p.config(), span);
  CUDA_CHECK(cudaDeviceSynchronize());
  p.check(p.dout.download(), "scale_shift_2d_kernel (default scratch allocator)");
}

// A user scratch allocator gets programs * global_scratch_size bytes on the launch's stream.
class CountingAllocator final : public triton_jit::ScratchAllocator {
 public:
  void* allocate(size_t bytes, size_t alignment, CUstream_st* stream) override {
    void* p = nullptr;
    CUDA_CHECK(cudaMallocAsync(&p, bytes, stream));
    allocations++;
    last_bytes = bytes;
    last_alignment = alignment;
    last_stream = stream;
    return p;
  }
  void deallocate(void* ptr, size_t, CUstream_st* stream) override {
    CUDA_CHECK(cudaFreeAsync(ptr, stream));
    deallocations++;
  }
  std::atomic<int> allocations{0}, deallocations{0};
  size_t last_bytes = 0, last_alignment = 0;
  CUstream_st* last_stream = nullptr;
};

TEST_F(GpuKernels, DeviceTensorDescriptorWithUserScratchAllocator) {
  const int arch = device_arch();
  if (arch < 90) GTEST_SKIP() << "device-side tensor descriptors (TMA) need sm_90 or newer; the device is sm_" << arch;
  std::mt19937_64 rng(test_seed());
  ScratchProblem p(rng);
  auto& fn = TritonJitFunction::get(kernel_path("tensor_descriptor.py"), "scale_shift_2d_kernel");
  const std::vector<ArgValue> args = p.args();
  const ArgSpan span{args.data(), args.size()};
  const KernelInfo& info = fn.compile(p.config(), span);
  ASSERT_GT(triton_jit::test::launch_metadata(info).global_scratch_size, 0);

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto allocator = std::make_shared<CountingAllocator>();
  triton_jit::set_scratch_allocator(allocator);
  struct Restore {
    ~Restore() { triton_jit::set_scratch_allocator(nullptr); }
  } restore;
  LaunchConfig config = p.config();
  config.stream = stream;
  fn.launch(config, span);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(allocator->allocations.load(), 1);
  EXPECT_EQ(allocator->deallocations.load(), 1);
  EXPECT_EQ(allocator->last_bytes,
            static_cast<size_t>(p.programs() * triton_jit::test::launch_metadata(info).global_scratch_size));
  EXPECT_EQ(allocator->last_alignment,
            static_cast<size_t>(triton_jit::test::launch_metadata(info).global_scratch_align));
  EXPECT_EQ(allocator->last_stream, stream);
  p.check(p.dout.download(), "scale_shift_2d_kernel (user scratch allocator)");
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
