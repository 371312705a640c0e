#include "triton_jit/torch/tensor_args.h"

#include <optional>

namespace triton_jit::torch {

ArgValue dtype_arg(c10::ScalarType type) {
  const int code = detail::triton_dtype_code(type);
  TORCH_CHECK(code >= 0, "triton_jit: the dtype ", type,
              " has no Triton type, so it cannot be passed to a Triton kernel");
  return ArgValue::torch_dtype(static_cast<DType>(code));
}

ArgValue scalar_arg(const c10::Scalar& s) {
  if (s.isBoolean()) return ArgValue::boolean(s.toBool());
  if (s.isIntegral(/*includeBool=*/false)) return ArgValue::integer(s.toLong());
  TORCH_CHECK(!s.isComplex(), "triton_jit: complex scalars cannot be passed to a Triton kernel");
  return ArgValue::floating(s.toDouble());
}

namespace detail {

void unsupported_dtype(c10::ScalarType type) {
  TORCH_CHECK(false, "triton_jit: tensors of dtype ", type, " cannot be passed to a Triton kernel");
}

ArgValue tensor_arg_checked(const at::Tensor& t) {
  TORCH_CHECK(t.defined(), "triton_jit: an undefined tensor was passed as a kernel argument");
  TORCH_CHECK(t.is_cuda(), "triton_jit: expected a CUDA tensor, got a tensor on ", t.device(),
              "; move it with .cuda() or .to('cuda')");
#if defined(USE_ROCM) || defined(__HIP_PLATFORM_AMD__)
  if (t.has_storage()) {  // HIP's 'S' flag (tensor_arg)
    return ArgValue::pointer_in_storage(t.data_ptr(), dtype_of(t.scalar_type()), t.is_contiguous() ? t.nbytes() : 0,
                                        static_cast<uint64_t>(t.storage().nbytes()));
  }
#endif
  return ArgValue::pointer(t.data_ptr(), dtype_of(t.scalar_type()), t.is_contiguous() ? t.nbytes() : 0);
}

void check_device(const at::Tensor& t, c10::Device device, const char* function) {
  TORCH_CHECK(t.device() == device, function, ": expected all tensors on ", device, ", but one is on ", t.device(),
              "; move them to one device");
}

// The table is the switch, entry for entry.
constexpr bool table_matches_switch() {
  for (size_t i = 0; i < kNumScalarTypes; ++i) {
    if (kDTypeCodes[i] != triton_dtype_code(static_cast<c10::ScalarType>(i))) return false;
  }
  return true;
}
static_assert(table_matches_switch());
static_assert(kDTypeCodes[static_cast<size_t>(c10::ScalarType::Float)] == static_cast<int>(DType::fp32));
static_assert(kDTypeCodes[static_cast<size_t>(c10::ScalarType::ComplexFloat)] == -1);

}  // namespace detail
}  // namespace triton_jit::torch
