// triton_jit_ops::softmax(Tensor x, int dim) -> Tensor: CUDA (Triton kernels in
// kernels/softmax.py) and Meta implementations.
//
// The softmax dimension is moved last and the input made contiguous (no copy when it already is,
// e.g. dim is the last dimension of a contiguous tensor), so the kernels reduce the rows of an
// [M, N] row-major matrix; the result is moved back, so it has the strides of that layout
// (contiguous when dim was last). A 0-dim tensor is a single row of one element (softmax of a
// scalar is 1; nan for inf or nan, as torch). Empty tensors launch nothing.
//
// Kernel choice: rows of up to kMaxSinglePassN elements are held whole in registers
// (softmax_kernel, BLOCK_N = next_power_of_2(N), BLOCK_M rows per program so a program has about
// kElementsPerProgram elements); longer rows use the two-pass online kernel (softmax_online_kernel,
// kOnlineBlock elements per step, one program per row).
#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include <algorithm>

#include "kernels.h"

namespace triton_jit::ops {
namespace {

constexpr int64_t kMaxSinglePassN = 16384;
constexpr int64_t kElementsPerProgram = 4096;
constexpr int64_t kOnlineBlock = 4096;

int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

void check_dtype(const at::Tensor& x) {
  const auto t = x.scalar_type();
  TORCH_CHECK(t == at::kHalf || t == at::kBFloat16 || t == at::kFloat,
              "triton_jit_ops::softmax: expected a float16, bfloat16 or float32 tensor, got ", t);
}

// The dimension to reduce, wrapped (negative allowed; out of range throws, as torch's ops do).
// A 0-dim tensor accepts dim 0 and -1, like torch.softmax.
int64_t wrap_dim(const at::Tensor& x, int64_t dim) {
  check_dim("softmax", dim, x.dim());
  return at::maybe_wrap_dim(dim, x.dim());
}

at::Tensor softmax_cuda(const at::Tensor& x, int64_t dim) {
  check_dtype(x);
  if (x.dim() == 0) {
    wrap_dim(x, dim);
    return softmax_cuda(x.reshape({1}), 0).reshape({});
  }
  const int64_t d = wrap_dim(x, dim);
  const at::Tensor xt = x.movedim(d, -1).contiguous();
  at::Tensor out = at::empty(xt.sizes(), xt.options());
  const int64_t n = xt.size(-1);
  if (xt.numel() == 0) return out.movedim(-1, d);
  const int64_t m = xt.numel() / n;

  if (n <= kMaxSinglePassN) {
    static TritonJitFunction& fn = kernel("softmax.py", "softmax_kernel");
    const int64_t block_n = next_power_of_2(n);
    const int64_t block_m = std::min(std::max<int64_t>(1, kElementsPerProgram / block_n), next_power_of_2(m));
    const int64_t elements = block_m * block_n;
    LaunchConfig config;
    config.grid = Grid(cdiv(m, block_m));
    config.num_warps = elements >= 16384 ? 16 : elements >= 8192 ? 8 : 4;
    config.num_stages = 1;
    torch::launch(fn, config, out, xt, m, n, block_m, block_n);
  } else {
    static TritonJitFunction& fn = kernel("softmax.py", "softmax_online_kernel");
    LaunchConfig config;
    config.grid = Grid(m);
    config.num_warps = 8;
    config.num_stages = 1;
    torch::launch(fn, config, out, xt, n, kOnlineBlock);
  }
  return out.movedim(-1, d);
}

// Shape, dtype and strides of the CUDA result, without data.
at::Tensor softmax_meta(const at::Tensor& x, int64_t dim) {
  check_dtype(x);
  const int64_t d = wrap_dim(x, dim);
  if (x.dim() == 0) return at::empty({}, x.options());
  // Sizes with `d` moved last, built without running an operator on the (fake) input.
  std::vector<c10::SymInt> sizes(x.sym_sizes().begin(), x.sym_sizes().end());
  c10::SymInt moved = sizes[static_cast<size_t>(d)];
  sizes.erase(sizes.begin() + d);
  sizes.push_back(std::move(moved));
  return at::empty_symint(sizes, x.options().memory_format(at::MemoryFormat::Contiguous)).movedim(-1, d);
}

}  // namespace
}  // namespace triton_jit::ops

// The schema; TORCH_LIBRARY in register.cpp owns the namespace.
TORCH_LIBRARY_FRAGMENT(triton_jit_ops, m) { m.def("softmax(Tensor x, int dim) -> Tensor"); }

TORCH_LIBRARY_IMPL(triton_jit_ops, CUDA, m) { m.impl("softmax", &triton_jit::ops::softmax_cuda); }

TORCH_LIBRARY_IMPL(triton_jit_ops, Meta, m) { m.impl("softmax", &triton_jit::ops::softmax_meta); }
