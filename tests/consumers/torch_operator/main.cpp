// A user's program: calls its own operator (user_ops::scale_add) and an installed one
// (triton_jit_ops::add) through the dispatcher; on meta tensors anywhere, on CUDA when a GPU is
// there (checked against ATen).
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/cuda.h>

#include <cstdio>
#include <string>

#include <triton_jit/triton_jit.h>

std::string user_ops_kernel_signature();  // scale_add_op.cpp

namespace {

at::Tensor scale_add(const at::Tensor& x, const at::Tensor& y, double alpha) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("user_ops::scale_add", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(x, y, alpha);
}

at::Tensor installed_add(const at::Tensor& a, const at::Tensor& b) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("triton_jit_ops::add", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const c10::Scalar&)>();
  return op.call(a, b, 1);
}

std::string shape(const at::Tensor& t) {
  std::string s;
  for (int64_t d : t.sizes()) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s + " " + std::string(c10::toString(t.scalar_type())) + " on " + t.device().str();
}

}  // namespace

int main() {
  try {
    std::printf("libtriton_jit %s\n", TRITON_JIT_VERSION_STRING);
    const auto meta = at::TensorOptions().device(at::kMeta).dtype(at::kFloat);
    std::printf("scale_add(meta): %s\n", shape(scale_add(at::empty({3, 5}, meta), at::empty({3, 5}, meta), 2)).c_str());
    std::printf("triton_jit_ops::add(meta): %s\n",
                shape(installed_add(at::empty({4, 1}, meta), at::empty({1, 6}, meta))).c_str());
    std::printf("kernel: %s", user_ops_kernel_signature().c_str());
    if (!torch::cuda::is_available()) {
      std::printf("cuda: no device, launches skipped\n");
      return 0;
    }
    const auto cuda = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
    const at::Tensor x = at::randn({1000, 37}, cuda), y = at::randn({1000, 37}, cuda);
    const double err = (scale_add(x, y, 2.5) - (x + 2.5 * y)).abs().max().item<double>();
    const double add_err = (installed_add(x, y) - (x + y)).abs().max().item<double>();
    std::printf("cuda: scale_add max error %g, add max error %g\n", err, add_err);
    return err < 1e-5 && add_err < 1e-5 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
