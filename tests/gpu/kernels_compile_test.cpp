// Runs everywhere, GPU or not: the GPU tests' kernels compile for sm_90 with the properties those
// tests rely on (opt-in shared memory, global scratch, clusters), so a kernel that stopped doing
// what its test needs fails here rather than as a skipped or misleading GPU test.
#include <cstdint>
#include <optional>
#include <string>

#include "gpu_test_util.h"
#include "support/launch_metadata.h"

namespace {

using namespace gpu_test;
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::KernelInfo;
using triton_jit::LaunchConfig;
using triton_jit::to_arg;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

// No memory behind these: compiling reads only the addresses' alignment.
const float* fake_f32(uintptr_t offset_bytes = 0) {
  return reinterpret_cast<const float*>((uintptr_t{1} << 20) + offset_bytes);
}

class KernelsCompileForSm90 : public ::testing::Test {
 protected:
  void SetUp() override { triton_jit::set_target(triton_jit::Target{"cuda", 90, 32}); }
  void TearDown() override { triton_jit::set_target(std::nullopt); }
};

KernelInfo compile_matmul(int bm, int bn, int bk, int stages) {
  auto& mm = TritonJitFunction::get(kernel_path("matmul.py"), "matmul_kernel");
  const int M = 300, N = 272, K = 208;
  const ArgValue args[] = {to_arg(TypedPtr{fake_f32(), DType::fp16}),
                           to_arg(TypedPtr{fake_f32(), DType::fp16}),
                           to_arg(fake_f32()),
                           to_arg(M),
                           to_arg(N),
                           to_arg(K),
                           to_arg(K),
                           to_arg(1),
                           to_arg(N),
                           to_arg(1),
                           to_arg(N),
                           to_arg(1),
                           to_arg(bm),
                           to_arg(bn),
                           to_arg(bk)};
  return mm.compile(LaunchConfig{{cdiv(M, bm), cdiv(N, bn)}, 8, stages}, ArgSpan{args, 15});
}

TEST_F(KernelsCompileForSm90, MatmulTileNeedsOptInSharedMemory) {
  const KernelInfo info = compile_matmul(128, 128, 64, 3);
  EXPECT_EQ(info.target.arch, 90);
  EXPECT_GT(info.shared, 49152) << "128x128x64 fp16 with 3 stages should pipeline through > 48 KiB";
}

TEST_F(KernelsCompileForSm90, MatmulTileOverHopperSharedMemoryLimit) {
  // 227 KiB is the opt-in limit of the H100 and H200: the GPU error test relies on exceeding it.
  EXPECT_GT(compile_matmul(128, 256, 64, 5).shared, 232448);
}

TEST_F(KernelsCompileForSm90, DeviceTensorDescriptorNeedsGlobalScratch) {
  auto& fn = TritonJitFunction::get(kernel_path("tensor_descriptor.py"), "scale_shift_2d_kernel");
  const ArgValue args[] = {to_arg(fake_f32()), to_arg(fake_f32()), to_arg(300), to_arg(200),
                           to_arg(2.5f),       to_arg(-1.25f),     to_arg(64),  to_arg(32)};
  const KernelInfo& info = fn.compile(LaunchConfig{{5, 7}, 4}, ArgSpan{args, 8});
  EXPECT_GT(triton_jit::test::launch_metadata(info).global_scratch_size, 0);
  EXPECT_GE(triton_jit::test::launch_metadata(info).global_scratch_align, 1);
  ASSERT_FALSE(triton_jit::test::launch_metadata(info).scratch_params.empty());
  EXPECT_EQ(triton_jit::test::launch_metadata(info).scratch_params[0], "global_scratch");
}

TEST_F(KernelsCompileForSm90, AddKernelWithTwoCtas) {
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  const ArgValue args[] = {to_arg(fake_f32()), to_arg(fake_f32()), to_arg(fake_f32()), to_arg(1000003), to_arg(1024)};
  const KernelInfo& info = add.compile(LaunchConfig{{977}, 4, 3, 2}, ArgSpan{args, 5});
  EXPECT_EQ(info.num_ctas, 2);
}

TEST_F(KernelsCompileForSm90, MisalignedPointerDropsDivisibility) {
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  const ArgValue aligned[] = {to_arg(TypedPtr{fake_f32(), DType::bf16}), to_arg(TypedPtr{fake_f32(), DType::bf16}),
                              to_arg(TypedPtr{fake_f32(), DType::bf16}), to_arg(17), to_arg(1024)};
  const ArgValue misaligned[] = {to_arg(TypedPtr{fake_f32(2), DType::bf16}), to_arg(TypedPtr{fake_f32(), DType::bf16}),
                                 to_arg(TypedPtr{fake_f32(6), DType::bf16}), to_arg(17), to_arg(1024)};
  const LaunchConfig config{{1}, 4};
  EXPECT_EQ(add.specialize(config, ArgSpan{aligned, 5}).signature(), "*bf16:16,*bf16:16,*bf16:16,i32,1024");
  EXPECT_EQ(add.specialize(config, ArgSpan{misaligned, 5}).signature(), "*bf16,*bf16:16,*bf16,i32,1024");
  const KernelInfo& a = add.compile(config, ArgSpan{aligned, 5});
  const KernelInfo& m = add.compile(config, ArgSpan{misaligned, 5});
  EXPECT_NE(a.hash, m.hash) << "different specializations, different binaries";
}

TEST_F(KernelsCompileForSm90, RowSoftmax) {
  auto& softmax = TritonJitFunction::get(kernel_path("softmax.py"), "softmax_kernel");
  const ArgValue args[] = {to_arg(fake_f32()), to_arg(fake_f32()), to_arg(800), to_arg(789), to_arg(781), to_arg(1024)};
  const KernelInfo& info = softmax.compile(LaunchConfig{{37}, 4}, ArgSpan{args, 6});
  EXPECT_FALSE(info.cubin.empty());
}

TEST_F(KernelsCompileForSm90, EchoScalarsWithEveryScalarType) {
  auto& fn = TritonJitFunction::get(kernel_path("scalars.py"), "echo_scalars_kernel");
  const ArgValue args[] = {to_arg(reinterpret_cast<const int64_t*>(fake_f32())),
                           to_arg(reinterpret_cast<const double*>(fake_f32())),
                           to_arg(int32_t{-123456789}),
                           to_arg((int64_t{1} << 40) + 12345),
                           to_arg(uint64_t{0xFFFFFFFFFFFFFFFDull}),
                           to_arg(true),
                           to_arg(-0.1),
                           to_arg(0.25),
                           to_arg(3.0),
                           to_arg(1e300),
                           to_arg(200),
                           to_arg(-300)};
  const LaunchConfig config{{1}, 1};
  EXPECT_EQ(fn.specialize(config, ArgSpan{args, 12}).signature(),
            "*i64:16,*fp64:16,i32,i64,u64,u1,fp32,fp16,bf16,fp64,u8,i16");
  EXPECT_FALSE(fn.compile(config, ArgSpan{args, 12}).cubin.empty());
}

TEST_F(KernelsCompileForSm90, CooperativeAndPdlOptionsReachTheMetadata) {
  auto& ids = TritonJitFunction::get(kernel_path("scalars.py"), "grid_ids_kernel");
  static const triton_jit::CompileOptions coop{{"launch_cooperative_grid", true}};
  LaunchConfig config{{8, 2}, 4};
  config.options = &coop;
  const ArgValue one[] = {to_arg(reinterpret_cast<const int64_t*>(fake_f32()))};
  EXPECT_TRUE(triton_jit::test::launch_metadata(ids.compile(config, ArgSpan{one, 1})).launch_cooperative_grid);

  auto& axpy = TritonJitFunction::get(kernel_path("elementwise.py"), "axpy_pdl_kernel");
  static const triton_jit::CompileOptions pdl{{"launch_pdl", true}};
  LaunchConfig pconfig{{977}, 4};
  pconfig.options = &pdl;
  const ArgValue args[] = {to_arg(fake_f32()), to_arg(fake_f32()), to_arg(1.0f), to_arg(int64_t{1000003}),
                           to_arg(1024)};
  const KernelInfo& info = axpy.compile(pconfig, ArgSpan{args, 5});
  EXPECT_TRUE(triton_jit::test::launch_metadata(info).launch_pdl);
  EXPECT_FALSE(triton_jit::test::launch_metadata(info).launch_cooperative_grid);
}

}  // namespace
