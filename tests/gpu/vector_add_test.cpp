// Vector add over fp16, bf16 and fp32: odd sizes, misaligned pointers (the key loses ':16' and the
// kernel is still right), every element checked, and nothing written outside [0, n).
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace {

using namespace gpu_test;
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::ParamSpecialization;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

constexpr int kBlock = 1024;
constexpr size_t kGuard = 64;  // elements after the used range that must stay untouched

struct AddCase {
  DType dtype;
  const char* name;
};

// Element storage and conversions of each dtype (fp32 keeps its bits in a uint32_t).
size_t elem_size(DType d) { return d == DType::fp32 ? 4 : 2; }

double to_double(DType d, uint32_t bits) {
  switch (d) {
    case DType::fp16: return half_to_float(static_cast<uint16_t>(bits));
    case DType::bf16: return bf16_to_float(static_cast<uint16_t>(bits));
    default: {
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
  }
}

uint32_t from_double(DType d, double v) {
  switch (d) {
    case DType::fp16: return double_to_half(v);
    case DType::bf16: return double_to_bf16(v);
    default: {
      const float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
  }
}

// Host and device bytes of one operand.
struct Operand {
  std::vector<uint8_t> host;
  DeviceBuffer<uint8_t> dev;
  Operand(size_t bytes) : host(bytes), dev(bytes) {}
  uint32_t get(DType d, size_t i) const {
    uint32_t v = 0;
    std::memcpy(&v, host.data() + i * elem_size(d), elem_size(d));
    return v;
  }
  void set(DType d, size_t i, uint32_t v) { std::memcpy(host.data() + i * elem_size(d), &v, elem_size(d)); }
};

// Names the case in gtest's output instead of dumping its bytes.
void PrintTo(const AddCase& c, std::ostream* os) { *os << c.name; }

class GpuVectorAddTyped : public GpuTest, public ::testing::WithParamInterface<AddCase> {};

// One launch of add_kernel over n elements, each pointer offset by the given element count.
void run_add(TritonJitFunction& add, DType dt, size_t n, const int offsets[3], std::mt19937_64& rng) {
  SCOPED_TRACE("n=" + std::to_string(n) + " offsets=(" + std::to_string(offsets[0]) + "," + std::to_string(offsets[1]) +
               "," + std::to_string(offsets[2]) + ")");
  const size_t es = elem_size(dt);
  std::uniform_real_distribution<double> dist(-8.0, 8.0);
  Operand x((n + 3 + kGuard) * es), y((n + 3 + kGuard) * es), out((n + 3 + kGuard) * es);
  const size_t total = n + 3 + kGuard;
  for (size_t i = 0; i < total; ++i) {
    x.set(dt, i, from_double(dt, dist(rng)));
    y.set(dt, i, from_double(dt, dist(rng)));
  }
  CUDA_CHECK(cudaMemcpy(x.dev.get(), x.host.data(), x.host.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(y.dev.get(), y.host.data(), y.host.size(), cudaMemcpyHostToDevice));
  out.dev.poison();

  const void* px = x.dev.get() + offsets[0] * es;
  const void* py = y.dev.get() + offsets[1] * es;
  const void* po = out.dev.get() + offsets[2] * es;
  const LaunchConfig config{{static_cast<int64_t>(cdiv(n, kBlock))}, 4};
  const ArgValue args[] = {triton_jit::to_arg(TypedPtr{px, dt}), triton_jit::to_arg(TypedPtr{py, dt}),
                           triton_jit::to_arg(TypedPtr{po, dt}), triton_jit::to_arg(static_cast<int32_t>(n)),
                           triton_jit::to_arg(kBlock)};
  const ArgSpan span{args, 5};

  // The key: a pointer is ':16' exactly when its address is divisible by 16.
  const triton_jit::Specialization spec = add.specialize(config, span);
  ASSERT_EQ(spec.params.size(), 5u);
  for (int p = 0; p < 3; ++p) {
    const bool aligned = (offsets[p] * es) % 16 == 0;
    EXPECT_EQ(spec.params[p].type, "*" + std::string(triton_jit::dtype_name(dt))) << "parameter " << p;
    EXPECT_EQ(spec.params[p].hint,
              aligned ? ParamSpecialization::Hint::Divisible16 : ParamSpecialization::Hint::NotAligned)
        << "parameter " << p << " in " << spec.signature();
  }
  const std::string sig = spec.signature();
  const std::string first = sig.substr(0, sig.find(','));
  EXPECT_EQ(first, "*" + std::string(triton_jit::dtype_name(dt)) + ((offsets[0] * es) % 16 == 0 ? ":16" : ""))
      << "signature " << sig;

  add.launch(config, span);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(out.host.data(), out.dev.get(), out.host.size(), cudaMemcpyDeviceToHost));

  Mismatches bad("add_kernel " + std::string(triton_jit::dtype_name(dt)));
  for (size_t i = 0; i < n; ++i) {
    const double a = to_double(dt, x.get(dt, i + offsets[0]));
    const double b = to_double(dt, y.get(dt, i + offsets[1]));
    const uint32_t want = from_double(dt, a + b);  // the exact sum, rounded once
    const uint32_t got = out.get(dt, i + offsets[2]);
    // One unit in the last place is allowed for fp16/bf16 (an fp32 add rounded again), none for fp32.
    const int64_t diff = static_cast<int64_t>(got) - static_cast<int64_t>(want);
    const bool same_sign = ((got ^ want) & (dt == DType::fp32 ? 0x80000000u : 0x8000u)) == 0;
    const bool ok = got == want || (dt != DType::fp32 && same_sign && (diff == 1 || diff == -1));
    if (!ok) {
      bad.add(i, fmt(a) + " + " + fmt(b) + " = " + fmt(to_double(dt, got)) + ", want " + fmt(to_double(dt, want)));
    }
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(n);

  // Everything outside [offset, offset + n) still holds the poison.
  const uint32_t poison = dt == DType::fp32 ? 0xFFFFFFFFu : 0xFFFFu;
  size_t touched = 0;
  for (size_t i = 0; i < total; ++i) {
    if (i >= static_cast<size_t>(offsets[2]) && i < offsets[2] + n) continue;
    touched += out.get(dt, i) != poison;
  }
  EXPECT_EQ(touched, 0u) << "add_kernel wrote outside the masked range";
}

TEST_P(GpuVectorAddTyped, OddSizesAlignedAndMisaligned) {
  const AddCase c = GetParam();
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GPU_TEST_SEED to replay)");
  std::mt19937_64 rng(seed);
  // A function of its own: other tests launch some of these keys too (BLOCK 1024, num_warps 4),
  // and the counts below must hold when the whole binary runs in one process.
  auto& add = TritonJitFunction::get(fresh_copy(add_kernel_path()), "add_kernel");
  const int aligned[3] = {0, 0, 0};
  const int misaligned[3] = {1, 2, 3};
  const int mixed[3] = {3, 0, 1};
  const triton_jit::Stats before = add.stats();
  for (size_t n : {size_t{1}, size_t{17}, size_t{1000003}}) {
    for (const int* offsets : {aligned, misaligned, mixed}) {
      run_add(add, c.dtype, n, offsets, rng);
      if (HasFatalFailure()) return;
    }
  }
  // Three alignments x two forms of n (1 is a constexpr, 17 and 1000003 an i32): six keys, so six
  // misses and three hits over the nine launches.
  const triton_jit::Stats after = add.stats();
  EXPECT_EQ(after.misses - before.misses, 6u);
  EXPECT_EQ(after.hits - before.hits, 3u);
  EXPECT_EQ(after.compiles - before.compiles, 6u);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GpuVectorAddTyped,
                         ::testing::Values(AddCase{DType::fp16, "fp16"}, AddCase{DType::bf16, "bf16"},
                                           AddCase{DType::fp32, "fp32"}),
                         [](const ::testing::TestParamInfo<AddCase>& info) { return std::string(info.param.name); });

// The typed-pointer form (float*) and the template call, on the legacy default stream.
class GpuVectorAdd : public GpuTest {};

TEST_F(GpuVectorAdd, FloatPointersTemplateCall) {
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int n = 98433;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.upload(x);
  dy.upload(y);
  dout.poison();
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  add(LaunchConfig{{cdiv(n, 512)}, 4}, dx.get(), dy.get(), dout.get(), n, 512);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> out = dout.download();
  Mismatches bad("add_kernel fp32 via float*");
  for (int i = 0; i < n; ++i) {
    if (!(out[i] == x[i] + y[i])) bad.add(i, fmt(out[i]) + " != " + fmt(x[i] + y[i]));
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(n);
}

}  // namespace
