// Launches through a fake driver (fake_driver.h): what reaches cuLaunchKernel(Ex) — the packed
// parameters at the sizes the compiled kernel declares, grid, block, shared memory, stream,
// cluster attributes, scratch memory — and the errors raised before or by the launch.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_driver.h"
#include "support/launch_metadata.h"
#include "test_util.h"

using triton_jit::TritonJitFunction;

namespace {

class FakeLaunch : public testing::Test {
 protected:
  void SetUp() override { fake::install(); }
  void TearDown() override {
    triton_jit::set_scratch_allocator(nullptr);
    fake::uninstall();
  }
  // A copy: a reference into fake::state().launches dangles once a later launch grows the vector.
  static fake::Launch only_launch() {
    EXPECT_EQ(fake::state().launches.size(), 1u);
    return fake::state().launches.back();
  }
};

float* device_ptr(uintptr_t address) { return reinterpret_cast<float*>(address); }

CUstream_st* stream(uintptr_t value) { return reinterpret_cast<CUstream_st*>(value); }

// The scratch pointers this Triton's launcher appends after the arguments (global scratch; profile
// scratch too from Triton 3.5 on), as the bridge reports them (compile_test.cpp checks that list
// against the cubin), and a kernel's parameter sizes: `runtime` ones, then those pointers.
size_t scratch_count() {
  static const size_t n = [] {
    const auto args = test::args(device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 64);
    return triton_jit::test::launch_metadata(test::add_kernel().compile(test::config(), test::span(args)))
        .scratch_params.size();
  }();
  return n;
}
std::vector<size_t> with_scratch(std::vector<size_t> runtime) {
  runtime.insert(runtime.end(), scratch_count(), 8);
  return runtime;
}
// The scratch pointers of a launch whose kernel needs no scratch: all null.
void expect_null_scratch(const fake::Launch& l, size_t runtime_params) {
  for (size_t i = 0; i < scratch_count(); ++i) EXPECT_EQ(l.u64(runtime_params + i), 0u) << "scratch pointer " << i;
}

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

uint64_t double_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

TEST_F(FakeLaunch, AddKernelParameters) {
  triton_jit::LaunchConfig c = test::config(3);
  c.stream = stream(0x5);
  test::add_kernel()(c, device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 1024);
  const fake::Launch l = only_launch();
  EXPECT_FALSE(l.ex);
  EXPECT_EQ(l.kernel, "add_kernel");
  EXPECT_EQ(l.grid[0], 3u);
  EXPECT_EQ(l.grid[1], 1u);
  EXPECT_EQ(l.grid[2], 1u);
  EXPECT_EQ(l.block[0], 128u);  // 4 warps of 32
  EXPECT_EQ(l.block[1], 1u);
  EXPECT_EQ(l.block[2], 1u);
  EXPECT_EQ(l.stream, stream(0x5));
  EXPECT_TRUE(l.extra_null);
  const auto args = test::args(device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 1024);
  EXPECT_EQ(l.shared, static_cast<unsigned>(test::add_kernel().compile(c, test::span(args)).shared));
  // x, y, out, n (i32), then the scratch pointers; BLOCK_SIZE is compiled in.
  ASSERT_EQ(l.sizes(), with_scratch({8, 8, 8, 4}));
  EXPECT_EQ(l.u64(0), 0x100000u);
  EXPECT_EQ(l.u64(1), 0x200000u);
  EXPECT_EQ(l.u64(2), 0x300000u);
  EXPECT_EQ(l.as<int32_t>(3), 1000);
  expect_null_scratch(l, 4);
  EXPECT_TRUE(fake::state().allocs.empty());
}

TEST_F(FakeLaunch, CompiledKernelIsReusedByTheLaunch) {
  const auto args = test::args(device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 512);
  test::add_kernel().compile(test::config(), test::span(args));  // for the fake device: cc 9.0
  const auto s0 = test::add_kernel().stats();
  test::add_kernel()(test::config(2), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 512);
  test::add_kernel()(test::config(2), device_ptr(0x100010), device_ptr(0x200000), device_ptr(0x300000), 999, 512);
  const auto s1 = test::add_kernel().stats();
  EXPECT_EQ(s1.compiles, s0.compiles);
  EXPECT_EQ(s1.hits, s0.hits + 2);
  ASSERT_EQ(fake::state().launches.size(), 2u);
  EXPECT_EQ(fake::state().launches[1].u64(0), 0x100010u);
  EXPECT_EQ(fake::state().launches[1].as<int32_t>(3), 999);
}

TEST_F(FakeLaunch, IntegerOneIsCompiledIn) {
  test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1, 1024);
  const fake::Launch l = only_launch();
  ASSERT_EQ(l.sizes(), with_scratch({8, 8, 8}));
  EXPECT_EQ(l.u64(2), 0x300000u);
  expect_null_scratch(l, 3);
}

TEST_F(FakeLaunch, IntegerWidths) {
  // A value beyond i32 is an i64 parameter; the kernel reads all 8 bytes.
  const int64_t big = (int64_t{1} << 40) + 3;
  test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), big, 1024);
  test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), -7, 1024);
  ASSERT_EQ(fake::state().launches.size(), 2u);
  const fake::Launch& l64 = fake::state().launches[0];
  ASSERT_EQ(l64.sizes(), with_scratch({8, 8, 8, 8}));
  EXPECT_EQ(l64.as<int64_t>(3), big);
  const fake::Launch& l32 = fake::state().launches[1];
  ASSERT_EQ(l32.params.at(3).size(), 4u);
  EXPECT_EQ(l32.as<int32_t>(3), -7);
}

TEST_F(FakeLaunch, ScalarAnnotationsPacking) {
  auto& fn = TritonJitFunction::get(test::kernel("scalars.py"), "scalars_kernel");
  // out_ptr, a: fp16, b: bf16, c: fp32, d: fp64, e: i64, f: u1, g: i8, BLOCK
  fn(test::config(), device_ptr(0x1000), 1.5, -2.25, 3.14159f, 2.718281828459045, int64_t{-5}, true, int8_t{-3}, 32);
  fn(test::config(), device_ptr(0x1000), 0.1, 1.01171875, 0.1, 3, int64_t{-5}, false, int8_t{7}, 32);
  fn(test::config(), device_ptr(0x1000), 65504.0, 1.00390625, -1e39, 1e300, int64_t{-5}, 0, int8_t{0}, 32);
  fn(test::config(), device_ptr(0x1000), 1e5, 3.0e38, 2.0f, -0.0, int64_t{-5}, true, int8_t{-128}, 32);
  fn(test::config(), device_ptr(0x1000), 5.960464477539063e-08, -0.0, 0, 1, int64_t{-5}, true, int8_t{1}, 32);
  const auto& ls = fake::state().launches;
  ASSERT_EQ(ls.size(), 5u);
  for (const fake::Launch& l : ls) ASSERT_EQ(l.sizes(), with_scratch({8, 2, 2, 4, 8, 8, 1, 1}));

  EXPECT_EQ(ls[0].u64(0), 0x1000u);
  EXPECT_EQ(ls[0].as<uint16_t>(1), 0x3E00);  // fp16 1.5
  EXPECT_EQ(ls[0].as<uint16_t>(2), 0xC010);  // bf16 -2.25
  EXPECT_EQ(ls[0].as<uint32_t>(3), float_bits(3.14159f));
  EXPECT_EQ(ls[0].as<uint64_t>(4), double_bits(2.718281828459045));
  EXPECT_EQ(ls[0].as<int64_t>(5), -5);
  EXPECT_EQ(ls[0].u64(6), 1u);
  EXPECT_EQ(ls[0].u64(7), 0xFDu);  // i8 -3

  EXPECT_EQ(ls[1].as<uint16_t>(1), 0x2E66);  // fp16 0.1 (nearest: 0.0999755859375)
  EXPECT_EQ(ls[1].as<uint16_t>(2), 0x3F81);  // bf16 1 + 3/256: truncated, as Triton's pack_bf16
  EXPECT_EQ(ls[1].as<uint32_t>(3), float_bits(0.1f));
  EXPECT_EQ(ls[1].as<double>(4), 3.0);  // an int given to an fp64 parameter
  EXPECT_EQ(ls[1].u64(6), 0u);
  EXPECT_EQ(ls[1].u64(7), 7u);

  EXPECT_EQ(ls[2].as<uint16_t>(1), 0x7BFF);       // fp16 max
  EXPECT_EQ(ls[2].as<uint16_t>(2), 0x3F80);       // bf16 1 + 1/256: a tie, to even (down)
  EXPECT_EQ(ls[2].as<uint32_t>(3), 0xFF800000u);  // -1e39 overflows fp32: -inf
  EXPECT_EQ(ls[2].as<double>(4), 1e300);
  EXPECT_EQ(ls[2].u64(6), 0u);

  EXPECT_EQ(ls[3].as<uint16_t>(1), 0x7C00);  // 1e5 overflows fp16: inf
  EXPECT_EQ(ls[3].as<uint16_t>(2), 0x7F61);  // bf16 3e38 = 0x7F61D...: truncated
  EXPECT_EQ(ls[3].as<uint32_t>(3), float_bits(2.0f));
  EXPECT_EQ(ls[3].as<uint64_t>(4), 0x8000000000000000ull);  // -0.0 keeps its sign
  EXPECT_EQ(ls[3].u64(7), 0x80u);

  EXPECT_EQ(ls[4].as<uint16_t>(1), 0x0001);  // 2**-24: the smallest fp16 subnormal
  EXPECT_EQ(ls[4].as<uint16_t>(2), 0x8000);  // bf16 -0.0
  EXPECT_EQ(ls[4].as<uint32_t>(3), 0u);      // int 0 to fp32
  EXPECT_EQ(ls[4].as<double>(4), 1.0);
}

TEST_F(FakeLaunch, NoneForAnnotatedParameters) {
  auto& fn = TritonJitFunction::get(test::kernel("annotated.py"), "annotated_kernel");
  // kptr: "*kfp32" given None is a null pointer.
  fn(test::config(), device_ptr(0x1000), 10, 1.0, true, device_ptr(0x2000), nullptr, 3, 64);
  const fake::Launch l = only_launch();
  // out_ptr, n (i64), scale, flag (u1), src_ptr, kptr, count (u64), scratch
  ASSERT_EQ(l.sizes(), with_scratch({8, 8, 4, 1, 8, 8, 8}));
  EXPECT_EQ(l.as<int64_t>(1), 10);
  EXPECT_EQ(l.u64(4), 0x2000u);
  EXPECT_EQ(l.u64(5), 0u);
  EXPECT_EQ(l.u64(6), 3u);
  // A scalar cannot be None.
  try {
    fn(test::config(), device_ptr(0x1000), 10, nullptr, true, device_ptr(0x2000), device_ptr(0x3000), 3, 64);
    ADD_FAILURE() << "None for an fp32 parameter was launched";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_TRUE(test::contains(e.what(), "annotated_kernel")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "fp32")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "None")) << e.what();
  }
  EXPECT_EQ(fake::state().launches.size(), 1u);
}

TEST_F(FakeLaunch, TrailingDefaultsOmitted) {
  auto& fn = TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel");
  fn(test::config(), device_ptr(0x4000), 100);
  const fake::Launch l = only_launch();
  // x_ptr, n, scale (default 2), then scratch; BLOCK, MODE, EXTRA, ALPHA, FLAG and one (= 1) are
  // compiled in.
  ASSERT_EQ(l.sizes(), with_scratch({8, 4, 4}));
  EXPECT_EQ(l.u64(0), 0x4000u);
  EXPECT_EQ(l.as<int32_t>(1), 100);
  EXPECT_EQ(l.as<int32_t>(2), 2);
  expect_null_scratch(l, 3);
  // Passing the defaults explicitly is the same kernel and the same parameters.
  const auto s0 = fn.stats();
  fn(test::config(), device_ptr(0x4000), 100, 128, "fast", nullptr, 1.5, true, 2, 1);
  EXPECT_EQ(fn.stats().compiles, s0.compiles);
  ASSERT_EQ(fake::state().launches.size(), 2u);
  EXPECT_EQ(fake::state().launches[1].params, l.params);
}

TEST_F(FakeLaunch, EmptyGridLaunchesNothing) {
  for (const triton_jit::Grid g : {triton_jit::Grid(0), triton_jit::Grid(4, 0), triton_jit::Grid(4, 2, 0)}) {
    triton_jit::LaunchConfig c = test::config();
    c.grid = g;
    test::add_kernel()(c, device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
  }
  EXPECT_TRUE(fake::state().launches.empty());
}

TEST_F(FakeLaunch, GridBeyondDeviceLimits) {
  const triton_jit::Grid bad[] = {triton_jit::Grid(int64_t{2147483648}), triton_jit::Grid(1, 65536),
                                  triton_jit::Grid(1, 1, 65536), triton_jit::Grid(-1)};
  for (const triton_jit::Grid& g : bad) {
    triton_jit::LaunchConfig c = test::config();
    c.grid = g;
    try {
      test::add_kernel()(c, device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
      ADD_FAILURE() << "grid " << g.x << "x" << g.y << "x" << g.z << " launched";
    } catch (const triton_jit::LaunchConfigError& e) {
      EXPECT_TRUE(test::contains(e.what(), "add_kernel")) << e.what();
      EXPECT_TRUE(test::contains(e.what(), "65535")) << e.what();
    }
  }
  // At the limits it launches.
  triton_jit::LaunchConfig c = test::config();
  c.grid = triton_jit::Grid(int64_t{2147483647}, 65535, 65535);
  test::add_kernel()(c, device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
  ASSERT_EQ(fake::state().launches.size(), 1u);
  EXPECT_EQ(fake::state().launches[0].grid[0], 2147483647u);
  // With clusters of 2, x counts blocks: 2**30 programs are 2**31 blocks.
  c = test::config(int64_t{1} << 30, 4, 3, 2);
  EXPECT_THROW(test::add_kernel()(c, device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256),
               triton_jit::LaunchConfigError);
  EXPECT_EQ(fake::state().launches.size(), 1u);
}

TEST_F(FakeLaunch, ClusterLaunchForTwoCtas) {
  triton_jit::LaunchConfig c = test::config(5, 4, 3, 2);
  c.stream = stream(0x77);
  test::add_kernel()(c, device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
  const fake::Launch l = only_launch();
  EXPECT_TRUE(l.ex);
  EXPECT_EQ(l.grid[0], 10u);  // programs x CTAs per cluster
  EXPECT_EQ(l.grid[1], 1u);
  EXPECT_EQ(l.block[0], 128u);
  EXPECT_EQ(l.stream, stream(0x77));
  bool cluster = false;
  for (const CUlaunchAttribute& a : l.attrs) {
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      cluster = true;
      EXPECT_EQ(a.value.clusterDim.x, 2u);
      EXPECT_EQ(a.value.clusterDim.y, 1u);
      EXPECT_EQ(a.value.clusterDim.z, 1u);
    }
  }
  EXPECT_TRUE(cluster);
  ASSERT_EQ(l.sizes(), with_scratch({8, 8, 8, 4}));
  EXPECT_EQ(l.as<int32_t>(3), 1000);
}

TEST_F(FakeLaunch, ArchitectureMismatch) {
  fake::state().cc_major = 8;
  fake::state().cc_minor = 0;
  fake::reinstall();
  triton_jit::set_target(triton_jit::Target::parse("cuda:90"));
  try {
    test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
    ADD_FAILURE() << "an sm_90 kernel was launched on an sm_80 device";
  } catch (const triton_jit::ArchitectureMismatchError& e) {
    EXPECT_TRUE(test::contains(e.what(), "sm_90")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "sm_80")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "add_kernel")) << e.what();
  }
  EXPECT_EQ(fake::state().module_loads, 0);
  EXPECT_TRUE(fake::state().launches.empty());
}

// A hip kernel compiles (Triton's AMD backend) but does not run on an NVIDIA device: the launch is
// refused before any module load, naming both (HIP launches: hip_launch_test.cpp).
TEST_F(FakeLaunch, HipKernelsAreNotLaunchedOnNvidiaDevices) {
  struct ResetTarget {
    ~ResetTarget() { triton_jit::set_target(std::nullopt); }
  } reset;
  triton_jit::set_target(triton_jit::Target::parse("hip:gfx942"));
  try {
    test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
    ADD_FAILURE() << "a hip kernel was launched";
  } catch (const triton_jit::ArchitectureMismatchError& e) {
    EXPECT_TRUE(test::contains(e.what(), "hip:gfx942")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "the device is sm_90")) << e.what();
  } catch (const triton_jit::CompileError& e) {
    // Triton 3.4 links the hsaco with ROCm's ld.lld (3.5 and newer link it themselves).
    if (!test::contains(e.what(), "ld.lld")) throw;
    GTEST_SKIP() << "this Triton cannot link hsaco files here: " << e.what();
  }
  EXPECT_EQ(fake::state().module_loads, 0);
  EXPECT_TRUE(fake::state().launches.empty());
}

TEST_F(FakeLaunch, LaunchFailureIsCudaError) {
  fake::state().launch_result = CUDA_ERROR_LAUNCH_FAILED;
  try {
    test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::NoDeviceError& e) {
    ADD_FAILURE() << "a launch failure is not a missing device: " << e.what();
  } catch (const triton_jit::CudaError& e) {
    EXPECT_EQ(e.code(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT_TRUE(test::contains(e.what(), fake::kLaunchFailedText)) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "CUDA_ERROR_LAUNCH_FAILED")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "add_kernel")) << e.what();
  }
}

TEST_F(FakeLaunch, ModuleLoadedOncePerContext) {
  const auto s0 = test::add_kernel().stats();
  CUcontext first = fake::state().current;
  for (int i = 0; i < 3; ++i) {
    test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 128);
  }
  EXPECT_EQ(fake::state().module_loads, 1);
  EXPECT_EQ(test::add_kernel().stats().loads, s0.loads + 1);

  fake::state().current = fake::new_context();
  test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 128);
  EXPECT_EQ(fake::state().module_loads, 2);
  EXPECT_EQ(test::add_kernel().stats().loads, s0.loads + 2);

  fake::state().current = first;
  test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 128);
  EXPECT_EQ(fake::state().module_loads, 2);
  EXPECT_EQ(test::add_kernel().stats().loads, s0.loads + 2);
  EXPECT_EQ(fake::state().launches.size(), 5u);
  EXPECT_EQ(fake::state().launches.back().context, first);
}

TEST_F(FakeLaunch, NoCurrentContextUsesThePrimaryOne) {
  fake::state().current = nullptr;
  test::add_kernel()(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 128);
  EXPECT_EQ(fake::state().primary_retains, 1);
  EXPECT_EQ(fake::state().current, fake::primary_context());
  EXPECT_EQ(only_launch().context, fake::primary_context());
}

TEST_F(FakeLaunch, GlobalScratchAllocatedPerLaunch) {
  auto& fn = TritonJitFunction::get(test::kernel("scratch.py"), "descriptor_kernel");
  const auto args = test::args(device_ptr(0x1000), 4096, 128);
  const int64_t per_program =
      triton_jit::test::launch_metadata(fn.compile(test::config(), test::span(args))).global_scratch_size;
  ASSERT_GT(per_program, 0);
  triton_jit::LaunchConfig c = test::config();
  c.grid = triton_jit::Grid(3, 2);
  c.stream = stream(0x99);
  fn(c, device_ptr(0x1000), 4096, 128);
  const fake::Launch l = only_launch();
  ASSERT_EQ(fake::state().allocs.size(), 1u);
  EXPECT_EQ(fake::state().allocs[0].bytes, static_cast<size_t>(6 * per_program));
  EXPECT_EQ(fake::state().allocs[0].stream, stream(0x99));
  // x_ptr, n, global scratch, then profile scratch (Triton 3.5 and newer), unused
  ASSERT_EQ(l.sizes(), with_scratch({8, 4}));
  EXPECT_EQ(l.u64(2), fake::state().allocs[0].ptr);
  if (scratch_count() > 1) EXPECT_EQ(l.u64(3), 0u);
  ASSERT_EQ(fake::state().frees.size(), 1u);
  EXPECT_EQ(fake::state().frees[0].ptr, fake::state().allocs[0].ptr);
  EXPECT_EQ(fake::state().frees[0].stream, stream(0x99));
}

class RecordingAllocator : public triton_jit::ScratchAllocator {
 public:
  void* allocate(size_t bytes, size_t alignment, CUstream_st* s) override {
    allocated.push_back({bytes, alignment, s});
    return reinterpret_cast<void*>(uintptr_t{0xabc000});
  }
  void deallocate(void* p, size_t bytes, CUstream_st* s) override { freed.push_back({p, bytes, s}); }
  struct Alloc {
    size_t bytes, alignment;
    CUstream_st* stream;
  };
  struct Free {
    void* ptr;
    size_t bytes;
    CUstream_st* stream;
  };
  std::vector<Alloc> allocated;
  std::vector<Free> freed;
};

TEST_F(FakeLaunch, UserScratchAllocator) {
  auto allocator = std::make_shared<RecordingAllocator>();
  triton_jit::set_scratch_allocator(allocator);
  auto& fn = TritonJitFunction::get(test::kernel("scratch.py"), "descriptor_kernel");
  const auto args = test::args(device_ptr(0x1000), 4096, 128);
  const triton_jit::KernelInfo& k = fn.compile(test::config(), test::span(args));
  triton_jit::LaunchConfig c = test::config(4);
  c.stream = stream(0x42);
  fn(c, device_ptr(0x1000), 4096, 128);
  EXPECT_TRUE(fake::state().allocs.empty());
  ASSERT_EQ(allocator->allocated.size(), 1u);
  EXPECT_EQ(allocator->allocated[0].bytes,
            static_cast<size_t>(4 * triton_jit::test::launch_metadata(k).global_scratch_size));
  EXPECT_EQ(allocator->allocated[0].alignment,
            static_cast<size_t>(triton_jit::test::launch_metadata(k).global_scratch_align));
  EXPECT_EQ(allocator->allocated[0].stream, stream(0x42));
  EXPECT_EQ(only_launch().u64(2), 0xabc000u);
  ASSERT_EQ(allocator->freed.size(), 1u);
  EXPECT_EQ(allocator->freed[0].ptr, reinterpret_cast<void*>(uintptr_t{0xabc000}));
  EXPECT_EQ(allocator->freed[0].bytes, allocator->allocated[0].bytes);
  EXPECT_EQ(allocator->freed[0].stream, stream(0x42));
}

TEST_F(FakeLaunch, SharedMemoryBeyondTheDevice) {
  auto& fn = TritonJitFunction::get(test::kernel("scratch.py"), "sum_kernel");
  const auto args = test::args(device_ptr(0x1000), device_ptr(0x2000), 1024);
  const int shared = fn.compile(test::config(), test::span(args)).shared;
  ASSERT_GT(shared, 0);
  fake::state().shared_optin = shared - 1;
  fake::reinstall();
  try {
    fn(test::config(), device_ptr(0x1000), device_ptr(0x2000), 1024);
    ADD_FAILURE() << "launched with more shared memory than the device has";
  } catch (const triton_jit::LaunchConfigError& e) {
    EXPECT_TRUE(test::contains(e.what(), "shared memory")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), std::to_string(shared))) << e.what();
  }
  EXPECT_TRUE(fake::state().launches.empty());
  // With enough shared memory it launches, asking for the kernel's amount.
  fake::state().shared_optin = 232448;
  fake::reinstall();
  fake::state().current = fake::new_context();
  fn(test::config(), device_ptr(0x1000), device_ptr(0x2000), 1024);
  EXPECT_EQ(only_launch().shared, static_cast<unsigned>(shared));
}

// Threads launching one cached kernel at once: the lock-free table lookup, the per-thread hit
// counters and the launcher's packing, shared by every thread. Each launch reaches the driver
// with its own thread's arguments and counts as one hit. scripts/sanitize.sh runs this under
// ThreadSanitizer.
TEST_F(FakeLaunch, ConcurrentLaunchesOfACachedKernelCountEveryHit) {
  constexpr int kThreads = 8, kLaunches = 200;
  auto& fn = test::add_kernel();
  fn(test::config(), device_ptr(0x100000), device_ptr(0x200000), device_ptr(0x300000), 1000, 256);  // compiles
  const triton_jit::Stats before = fn.stats();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&fn, t] {
      for (int i = 0; i < kLaunches; ++i) {
        fn(test::config(), device_ptr(0x100000 + 0x1000 * t), device_ptr(0x200000), device_ptr(0x300000), 1000 + t,
           256);
      }
    });
  }
  for (auto& t : threads) t.join();
  const triton_jit::Stats after = fn.stats();
  EXPECT_EQ(after.hits - before.hits, uint64_t{kThreads * kLaunches});
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.compiles, before.compiles);
  const auto& launches = fake::state().launches;
  ASSERT_EQ(launches.size(), size_t{1 + kThreads * kLaunches});
  std::vector<int> per_thread(kThreads, 0);
  for (size_t i = 1; i < launches.size(); ++i) {
    const int t = launches[i].as<int32_t>(3) - 1000;
    ASSERT_TRUE(t >= 0 && t < kThreads) << "launch " << i << " has n " << launches[i].as<int32_t>(3);
    EXPECT_EQ(launches[i].u64(0), 0x100000u + 0x1000u * t) << "launch " << i << " mixes two threads' arguments";
    ++per_thread[t];
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(per_thread[t], kLaunches) << "thread " << t;
}

}  // namespace
