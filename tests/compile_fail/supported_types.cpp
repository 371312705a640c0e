// The control: every supported type converts, so the failures above are the static_asserts'.
#include <cstdint>
#include <optional>
#include <string>

#include "triton_jit/triton_jit.h"
void f(float* a, const int32_t* b, triton_jit::TypedPtr c, std::optional<int> d, std::string s) {
  (void)triton_jit::to_arg(a);
  (void)triton_jit::to_arg(b);
  (void)triton_jit::to_arg(c);
  (void)triton_jit::to_arg(d);
  (void)triton_jit::to_arg(s);
  (void)triton_jit::to_arg("lit");
  (void)triton_jit::to_arg(nullptr);
  (void)triton_jit::to_arg(std::nullopt);
  (void)triton_jit::to_arg(1.5);
  (void)triton_jit::to_arg(uint64_t{1} << 63);
  (void)triton_jit::to_arg(true);
  (void)triton_jit::to_arg(int8_t{3});
  (void)triton_jit::to_arg(triton_jit::DType::fp16);
  (void)triton_jit::to_arg(triton_jit::TorchDType{triton_jit::DType::bf16});
}

// A call with every kind at once, string literals included.
void g(const triton_jit::TritonJitFunction& fn, float* x, __UINT64_TYPE__ n) {
  fn(triton_jit::LaunchConfig{{1}}, x, nullptr, n, 2.5f, true, "relu", std::string_view("gelu"), std::nullopt,
     triton_jit::DType::fp32, triton_jit::TorchDType{triton_jit::DType::fp16});
}
