#include "triton_jit/torch/tensor_args.h"

#include <optional>

namespace triton_jit::torch {

namespace {

// Triton's element type of a torch dtype, if it has one.
std::optional<DType> find_dtype(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return DType::fp32;
    case c10::ScalarType::Half: return DType::fp16;
    case c10::ScalarType::BFloat16: return DType::bf16;
    case c10::ScalarType::Double: return DType::fp64;
    case c10::ScalarType::Float8_e4m3fn: return DType::fp8e4nv;
    case c10::ScalarType::Float8_e5m2: return DType::fp8e5;
    case c10::ScalarType::Float8_e4m3fnuz: return DType::fp8e4b8;
    case c10::ScalarType::Float8_e5m2fnuz: return DType::fp8e5b16;
    case c10::ScalarType::Bool: return DType::u1;
    case c10::ScalarType::Char: return DType::i8;
    case c10::ScalarType::Short: return DType::i16;
    case c10::ScalarType::Int: return DType::i32;
    case c10::ScalarType::Long: return DType::i64;
    case c10::ScalarType::Byte: return DType::u8;
    case c10::ScalarType::UInt16: return DType::u16;
    case c10::ScalarType::UInt32: return DType::u32;
    case c10::ScalarType::UInt64: return DType::u64;
    default: return std::nullopt;
  }
}

}  // namespace

DType dtype_of(c10::ScalarType type) {
  const std::optional<DType> d = find_dtype(type);
  TORCH_CHECK(d.has_value(), "triton_jit: tensors of dtype ", type, " cannot be passed to a Triton kernel");
  return *d;
}

ArgValue dtype_arg(c10::ScalarType type) {
  const std::optional<DType> d = find_dtype(type);
  TORCH_CHECK(d.has_value(), "triton_jit: the dtype ", type,
              " has no Triton type, so it cannot be passed to a Triton kernel");
  return ArgValue::torch_dtype(*d);
}

ArgValue tensor_arg(const at::Tensor& t) {
  TORCH_CHECK(t.defined(), "triton_jit: an undefined tensor was passed as a kernel argument");
  TORCH_CHECK(t.is_cuda(), "triton_jit: expected a CUDA tensor, got a tensor on ", t.device(),
              "; move it with .cuda() or .to('cuda')");
  return ArgValue::pointer(t.data_ptr(), dtype_of(t.scalar_type()));
}

ArgValue scalar_arg(const c10::Scalar& s) {
  if (s.isBoolean()) return ArgValue::boolean(s.toBool());
  if (s.isIntegral(/*includeBool=*/false)) return ArgValue::integer(s.toLong());
  TORCH_CHECK(!s.isComplex(), "triton_jit: complex scalars cannot be passed to a Triton kernel");
  return ArgValue::floating(s.toDouble());
}

namespace detail {

void check_device(const at::Tensor& t, c10::Device device, const char* function) {
  TORCH_CHECK(t.device() == device, function, ": expected all tensors on ", device, ", but one is on ", t.device(),
              "; move them to one device");
}

}  // namespace detail
}  // namespace triton_jit::torch
