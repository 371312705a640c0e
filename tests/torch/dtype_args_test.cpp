// c10::ScalarType as a kernel argument (triton_jit/torch/tensor_args.h): torch's spelling of the
// dtype, what Python passes as `x.dtype`, for tl.constexpr parameters. No GPU: specialize and
// compile for cuda:90 only.
#include <ATen/ATen.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "triton_jit/torch/tensor_args.h"

namespace {

using triton_jit::DType;
using triton_jit::TritonJitFunction;

TritonJitFunction& scale() {
  return TritonJitFunction::get(TRITON_JIT_TEST_KERNELS_DIR "/dtype_constexpr.py", "scale_kernel");
}

const float* const kX = reinterpret_cast<const float*>(uintptr_t{0x1000});

triton_jit::LaunchConfig config() {
  triton_jit::LaunchConfig c;
  c.grid = triton_jit::Grid(1);
  return c;
}

TEST(TorchDTypeArgs, AScalarTypeIsTorchsSpelling) {
  const auto s = scale().specialize(config(), kX, 100, at::kHalf);
  EXPECT_EQ(s.signature(), "*fp32:16,i32,torch.float16,triton.language.float32,128");
  EXPECT_EQ(s.triton_repr(),
            "[('*fp32', 'D'), ('i32', ''), ('constexpr', torch.float16), ('constexpr', triton.language.float32), "
            "('constexpr', 128)]");
  // x.scalar_type() of a tensor, and the same in triton_jit's own form.
  const at::Tensor t = at::empty({2}, at::TensorOptions().device(at::kMeta).dtype(at::kBFloat16));
  EXPECT_EQ(scale().specialize(config(), kX, 100, t.scalar_type()).signature(),
            scale().specialize(config(), kX, 100, triton_jit::TorchDType{DType::bf16}).signature());
  // A Triton dtype is another key.
  EXPECT_NE(scale().specialize(config(), kX, 100, DType::fp16).signature(), s.signature());
  // An empty optional is None.
  EXPECT_EQ(scale().specialize(config(), kX, 100, std::optional<at::ScalarType>{}).params[2].value_repr, "None");
}

TEST(TorchDTypeArgs, EveryScalarTypeWithATritonTypeReprsAsTorchDoes) {
  int checked = 0;
  for (const at::ScalarType t : {at::kBool, at::kChar, at::kShort, at::kInt, at::kLong, at::kByte, at::kUInt16,
                                 at::kUInt32, at::kUInt64, at::kHalf, at::kBFloat16, at::kFloat, at::kDouble,
                                 at::kFloat8_e4m3fn, at::kFloat8_e5m2, at::kFloat8_e4m3fnuz, at::kFloat8_e5m2fnuz}) {
    SCOPED_TRACE(c10::toString(t));
    // Python's repr of the torch dtype: "torch." and its first name (torch.float16, not torch.half).
    const std::string expected = "torch." + c10::getDtypeNames(t).first;
    EXPECT_EQ(scale().specialize(config(), kX, 100, t).params[2].value_repr, expected);
    // The pointer dtype of a tensor of that type is the dtype the constexpr names.
    EXPECT_EQ(triton_jit::torch::dtype_arg(t).dtype(), triton_jit::torch::dtype_of(t));
    ++checked;
  }
  EXPECT_EQ(checked, triton_jit::kNumDTypes - 1);  // all but fp8e4b15, which torch lacks
}

TEST(TorchDTypeArgs, AScalarTypeWithoutATritonTypeIsAClearError) {
  try {
    scale().specialize(config(), kX, 100, at::kComplexFloat);
    ADD_FAILURE() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what_without_backtrace()).find("has no Triton type"), std::string::npos)
        << e.what_without_backtrace();
  }
}

TEST(TorchDTypeArgs, CompilesAsTheTorchSpelledKey) {
  // Compiled for cuda:90 without a GPU: the same kernel as the signature text names.
  const triton_jit::KernelInfo& k = scale().compile(config(), kX, 100, at::kHalf);
  EXPECT_EQ(k.name, "scale_kernel");
  EXPECT_EQ(k.target.arch, 90);
  EXPECT_EQ(scale()
                .compile(triton_jit::CompileRequest{
                    "*fp32:16,i32,torch.float16,triton.language.float32,128", 4, 3, 1, {}, {}})
                .hash,
            k.hash);
  EXPECT_NE(scale().compile(config(), kX, 100, DType::fp16).hash, k.hash);
}

}  // namespace
