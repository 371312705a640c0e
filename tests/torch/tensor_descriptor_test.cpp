// triton_jit::torch::from_tensor: host tensor descriptors over tensors, as Triton's
// TensorDescriptor.from_tensor makes them; launched with a kernel that loads and stores through
// them (on a GPU).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "triton_jit/torch/tensor_args.h"
#include "triton_jit/torch/tensor_descriptor.h"

using triton_jit::Padding;
using triton_jit::torch::from_tensor;

namespace {

TEST(TorchDescriptors, ShapeStridesAndElementTypeComeFromTheTensor) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU: from_tensor takes CUDA tensors";
  const at::Tensor t = at::empty({30, 48}, at::dtype(at::kBFloat16).device(at::kCUDA));
  const triton_jit::TensorDescriptor d = from_tensor(t.narrow(1, 0, 40), {16, 32}, Padding::Nan);
  EXPECT_EQ(d.rank, 2);
  EXPECT_EQ(d.base.ptr, t.data_ptr());
  EXPECT_EQ(d.base.dtype, triton_jit::DType::bf16);
  EXPECT_EQ(d.shape[0], 30);
  EXPECT_EQ(d.shape[1], 40);
  EXPECT_EQ(d.strides[0], 48);
  EXPECT_EQ(d.strides[1], 1);
  EXPECT_EQ(d.block_shape[0], 16);
  EXPECT_EQ(d.block_shape[1], 32);
  EXPECT_EQ(d.padding, Padding::Nan);
}

TEST(TorchDescriptors, TensorsADescriptorCannotCoverAreRefused) {
  EXPECT_THROW(from_tensor(at::Tensor(), {16}), c10::Error);
  EXPECT_THROW(from_tensor(at::zeros({32, 32}), {16, 16}), c10::Error);  // on the CPU
  if (!torch::cuda::is_available()) return;
  const auto cuda = at::dtype(at::kHalf).device(at::kCUDA);
  EXPECT_THROW(from_tensor(at::zeros({32, 32}, cuda), {16}), c10::Error);                         // block rank
  EXPECT_THROW(from_tensor(at::zeros({32, 32}, cuda).t(), {16, 16}), triton_jit::ArgumentError);  // not contiguous
  EXPECT_THROW(from_tensor(at::zeros({32, 33}, cuda).narrow(1, 0, 32), {16, 16}), triton_jit::ArgumentError);
  EXPECT_THROW(from_tensor(at::zeros({32, 32}, cuda), {16, 12}), triton_jit::ArgumentError);  // not a power of 2
}

TEST(TorchDescriptors, CopyThroughDescriptorsMatchesTorch) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  if (at::cuda::getCurrentDeviceProperties()->major < 9) GTEST_SKIP() << "TMA needs sm_90 or newer";
  auto& copy = triton_jit::TritonJitFunction::get(TRITON_JIT_TEST_KERNELS_DIR "/descriptors.py", "copy2d_kernel");
  const at::Tensor x = at::randn({300, 200}, at::dtype(at::kHalf).device(at::kCUDA));
  const at::Tensor y = at::full_like(x, NAN);
  triton_jit::LaunchConfig config;
  config.grid = {5, 4};
  config.stream = at::cuda::getCurrentCUDAStream().stream();
  copy(config, from_tensor(x, {64, 64}), from_tensor(y, {64, 64}), 1.5f, 64, 64);
  EXPECT_TRUE(at::equal(y, (x * 1.5).to(at::kHalf)));
}

}  // namespace
