#pragma once

// at::Tensor, std::optional<at::Tensor>, c10::Scalar and c10::ScalarType as kernel arguments, and
// a launch on the tensors' device and torch's current stream there.
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <optional>

#include "triton_jit/triton_jit.h"

namespace triton_jit::torch {

// Triton's element type of a torch dtype; throws (c10::Error, a RuntimeError in Python) for
// dtypes Triton has no pointer type for (complex, quantized).
DType dtype_of(c10::ScalarType type);

// The pointer argument of a tensor: defined and on a CUDA device, or a clear error.
ArgValue tensor_arg(const at::Tensor& t);

// The argument of a scalar, with its type kept: integers follow the integer rules, floating
// values become fp32 arguments as Python floats do, booleans are bools.
ArgValue scalar_arg(const c10::Scalar& s);

// The argument of a torch dtype, for a tl.constexpr parameter: torch's spelling (torch.float16),
// as Python passes `x.dtype`. Throws (c10::Error) for dtypes Triton has no type for (complex).
ArgValue dtype_arg(c10::ScalarType type);

namespace detail {

void check_device(const at::Tensor& t, c10::Device device, const char* function);

inline void collect_device(std::optional<c10::Device>& device, const char* function, const at::Tensor& t) {
  if (!t.defined()) return;
  if (!device) {
    TORCH_CHECK(t.is_cuda(), function, ": expected CUDA tensors, got a tensor on ", t.device(),
                "; move it with .cuda() or .to('cuda')");
    device = t.device();
  } else {
    check_device(t, *device, function);
  }
}
inline void collect_device(std::optional<c10::Device>& device, const char* function,
                           const std::optional<at::Tensor>& t) {
  if (t) collect_device(device, function, *t);
}
template <typename T>
void collect_device(std::optional<c10::Device>&, const char*, const T&) {}

}  // namespace detail

// Launches `fn` on the device of its tensor arguments (all must be on that one CUDA device), under
// a device guard, on torch's current stream of that device; no synchronisation is added.
template <typename... Args>
void launch(const TritonJitFunction& fn, LaunchConfig config, const Args&... args) {
  std::optional<c10::Device> device;
  (detail::collect_device(device, fn.name().c_str(), args), ...);
  TORCH_CHECK(device.has_value(), fn.name(), ": no tensor argument tells on which device to launch");
  const c10::cuda::CUDAGuard guard(*device);
  config.stream = c10::cuda::getCurrentCUDAStream(device->index()).stream();
  fn(config, args...);
}

}  // namespace triton_jit::torch

namespace triton_jit {

template <>
struct ArgConverter<at::Tensor> {
  static ArgValue convert(const at::Tensor& t) { return torch::tensor_arg(t); }
};

template <>
struct ArgConverter<std::optional<at::Tensor>> {
  static ArgValue convert(const std::optional<at::Tensor>& t) {
    return t && t->defined() ? torch::tensor_arg(*t) : ArgValue::none();
  }
};

template <>
struct ArgConverter<c10::Scalar> {
  static ArgValue convert(const c10::Scalar& s) { return torch::scalar_arg(s); }
};

// at::kHalf, x.scalar_type(): torch.float16 (std::optional<c10::ScalarType> may be None).
template <>
struct ArgConverter<c10::ScalarType> {
  static ArgValue convert(c10::ScalarType type) { return torch::dtype_arg(type); }
};

}  // namespace triton_jit
