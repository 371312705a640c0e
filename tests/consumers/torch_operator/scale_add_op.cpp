// A user's operator: user_ops::scale_add(Tensor x, Tensor y, float alpha) -> Tensor, x + alpha * y
// by a Triton kernel on CUDA tensors, shapes only on meta tensors.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <triton_jit/torch/kernel_files.h>
#include <triton_jit/torch/tensor_args.h>

namespace {

triton_jit::TritonJitFunction& scale_add_kernel() {
  static triton_jit::TritonJitFunction& fn = triton_jit::TritonJitFunction::get(
      triton_jit::torch::kernel_file_beside(reinterpret_cast<const void*>(&scale_add_kernel), "scale_add.py"),
      "scale_add_kernel");
  return fn;
}

at::Tensor scale_add_cuda(const at::Tensor& x, const at::Tensor& y, double alpha) {
  TORCH_CHECK(x.sizes() == y.sizes() && x.scalar_type() == y.scalar_type(),
              "user_ops::scale_add: x and y must have one shape and dtype");
  const at::Tensor xc = x.contiguous(), yc = y.contiguous();
  at::Tensor out = at::empty_like(xc);
  const int64_t n = out.numel();
  if (n == 0) return out;
  constexpr int64_t kBlock = 1024;
  triton_jit::LaunchConfig config;
  config.grid = triton_jit::Grid((n + kBlock - 1) / kBlock);
  triton_jit::torch::launch(scale_add_kernel(), config, xc, yc, out, static_cast<float>(alpha), n, kBlock);
  return out;
}

at::Tensor scale_add_meta(const at::Tensor& x, const at::Tensor& y, double) {
  TORCH_CHECK(x.sizes() == y.sizes() && x.scalar_type() == y.scalar_type(),
              "user_ops::scale_add: x and y must have one shape and dtype");
  return at::empty_like(x);
}

}  // namespace

TORCH_LIBRARY(user_ops, m) { m.def("scale_add(Tensor x, Tensor y, float alpha) -> Tensor"); }
TORCH_LIBRARY_IMPL(user_ops, CUDA, m) { m.impl("scale_add", scale_add_cuda); }
TORCH_LIBRARY_IMPL(user_ops, Meta, m) { m.impl("scale_add", scale_add_meta); }

// For the program: the kernel's signature as the runtime read it (no GPU needed).
std::string user_ops_kernel_signature() { return scale_add_kernel().signature().to_string(); }
