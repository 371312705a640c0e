// triton_jit_ops::matmul(Tensor a, Tensor b, bool transpose_a=False, bool transpose_b=False) -> Tensor:
// C = op(a) @ op(b), op(x) = x^T where the flag is set. CUDA (kernels/matmul.py), Meta and
// Autograd implementations.
//
// Operands are 2-D, of one dtype (float16, bfloat16 or float32) and on one device; the result has
// their dtype and is contiguous [M, N]. The kernel accumulates in fp32 (fp32 inputs go through
// tl.dot's default tf32 precision). op(a) and op(b) are read through their strides: a transpose
// flag or a transposed/strided view costs no copy. K == 0 gives zeros, M == 0 or N == 0 an
// empty result, without a launch.
//
// Tile heuristics (tuned for H100/H200-class GPUs, ~132 SMs):
//   BLOCK_M = 16/32/64/128: the smallest of these >= M, capped at 128; BLOCK_N likewise from N.
//   When both are 128 and the 128x128 grid has fewer than kOneWave tiles, BLOCK_N and then
//   BLOCK_M drop to 64 so more SMs get work.
//   BLOCK_K = 64 for 16-bit inputs, 32 for fp32 (same bytes per stage); 16 or 32 when K is that
//   small.
//   num_warps = 8 for 128x128 tiles, else 4; num_stages = 4 for 16-bit inputs with BLOCK_K 64, else 3
//   (at most 128 KiB of shared memory). GROUP_M = 8 (L2 swizzle). EVEN_K drops the K masks when
//   K % BLOCK_K == 0; INT64_IDX switches to 64-bit offsets when any could pass int32.
//
// Autograd, with X = op(a), Y = op(b), C = X Y, dX = dC Y^T and dY = X^T dC; for a stored
// transposed the gradient of the stored tensor is the transpose (dA = dX^T, dB = dY^T), and every
// product is again one matmul with flags (no copies):
//   ta tb | grad of a                          | grad of b
//   F  F  | dC B^T    = matmul(dC, b, F, T)    | A^T dC    = matmul(a, dC, T, F)
//   T  F  | B dC^T    = matmul(b, dC, F, T)    | A dC      = matmul(a, dC, F, F)
//   F  T  | dC B      = matmul(dC, b, F, F)    | dC^T A    = matmul(dC, a, T, F)
//   T  T  | B^T dC^T  = matmul(b, dC, T, T)    | dC^T A^T  = matmul(dC, a, T, T)
// i.e. grad_a = ta ? matmul(b, dC, tb, T) : matmul(dC, b, F, !tb) and
//      grad_b = tb ? matmul(dC, a, T, ta) : matmul(a, dC, !ta, F).
// Backward calls the operator through the dispatcher, so it runs on the Triton kernel (or Meta)
// and, under create_graph, is itself differentiable.
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <algorithm>

#include "kernels.h"

namespace triton_jit::ops {
namespace {

using MatmulSignature = at::Tensor(const at::Tensor&, const at::Tensor&, bool, bool);

constexpr int64_t kOneWave = 128;
constexpr int64_t kGroupM = 8;
constexpr int64_t kInt32Max = 2147483647;

const c10::TypedOperatorHandle<MatmulSignature>& matmul_op() {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("triton_jit_ops::matmul", "").typed<MatmulSignature>();
  return op;
}

struct Dims {
  int64_t m, n, k;
};

// Checks the operands and returns op(a)'s [M, K] and op(b)'s [K, N] sizes.
Dims check_operands(const at::Tensor& a, const at::Tensor& b, bool ta, bool tb) {
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "triton_jit_ops::matmul: expected 2-D matrices, got a of shape ", a.sizes(),
              " and b of shape ", b.sizes());
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "triton_jit_ops::matmul: expected a and b of one dtype, got ",
              a.scalar_type(), " and ", b.scalar_type());
  const auto t = a.scalar_type();
  TORCH_CHECK(t == at::kHalf || t == at::kBFloat16 || t == at::kFloat,
              "triton_jit_ops::matmul: expected float16, bfloat16 or float32 tensors, got ", t);
  TORCH_CHECK(a.device() == b.device(), "triton_jit_ops::matmul: expected a and b on one device, got ", a.device(),
              " and ", b.device());
  const int64_t m = ta ? a.size(1) : a.size(0);
  const int64_t ka = ta ? a.size(0) : a.size(1);
  const int64_t kb = tb ? b.size(1) : b.size(0);
  const int64_t n = tb ? b.size(0) : b.size(1);
  TORCH_CHECK(ka == kb, "triton_jit_ops::matmul: inner dimensions differ: a of shape ", a.sizes(),
              (ta ? " (transposed: " : " (as is: "), m, "x", ka, ") and b of shape ", b.sizes(),
              (tb ? " (transposed: " : " (as is: "), kb, "x", n, ")");
  return {m, n, ka};
}

int64_t tile_for(int64_t size) { return size <= 16 ? 16 : size <= 32 ? 32 : size <= 64 ? 64 : 128; }

// Whether offsets of a [rows, cols] operand (plus a tile of overhang and one K step) can pass int32.
bool needs_int64(int64_t rows, int64_t row_stride, int64_t cols, int64_t col_stride) {
  // Doubles avoid overflow in the check itself; precision is ample at this threshold.
  return static_cast<double>(rows) * static_cast<double>(row_stride) +
             static_cast<double>(cols) * static_cast<double>(col_stride) >=
         static_cast<double>(kInt32Max);
}

at::Tensor matmul_cuda(const at::Tensor& a, const at::Tensor& b, bool ta, bool tb) {
  const Dims d = check_operands(a, b, ta, tb);
  if (d.m == 0 || d.n == 0) return at::empty({d.m, d.n}, a.options());
  if (d.k == 0) return at::zeros({d.m, d.n}, a.options());
  at::Tensor c = at::empty({d.m, d.n}, a.options());

  // op(a)[i, k] = a[k, i] when transposed: swap the strides instead of copying.
  const int64_t stride_am = ta ? a.stride(1) : a.stride(0);
  const int64_t stride_ak = ta ? a.stride(0) : a.stride(1);
  const int64_t stride_bk = tb ? b.stride(1) : b.stride(0);
  const int64_t stride_bn = tb ? b.stride(0) : b.stride(1);

  const bool wide = a.scalar_type() != at::kFloat;  // 16-bit inputs
  int64_t block_m = tile_for(d.m);
  int64_t block_n = tile_for(d.n);
  if (block_m == 128 && block_n == 128 && cdiv(d.m, 128) * cdiv(d.n, 128) < kOneWave) {
    block_n = 64;
    if (cdiv(d.m, 128) * cdiv(d.n, 64) < kOneWave) block_m = 64;
  }
  const int64_t block_k = std::min<int64_t>(wide ? 64 : 32, d.k <= 16 ? 16 : d.k <= 32 ? 32 : 64);
  const bool even_k = d.k % block_k == 0;
  const bool int64_idx = needs_int64(d.m + block_m, stride_am, d.k + 2 * block_k, stride_ak) ||
                         needs_int64(d.k + 2 * block_k, stride_bk, d.n + block_n, stride_bn) ||
                         needs_int64(d.m + block_m, c.stride(0), d.n + block_n, c.stride(1));

  LaunchConfig config;
  config.grid = Grid(cdiv(d.m, block_m) * cdiv(d.n, block_n));
  config.num_warps = block_m * block_n >= 128 * 128 ? 8 : 4;
  config.num_stages = wide && block_k == 64 ? 4 : 3;
  static TritonJitFunction& fn = kernel("matmul.py", "matmul_kernel");
  torch::launch(fn, config, a, b, c, d.m, d.n, d.k, stride_am, stride_ak, stride_bk, stride_bn, c.stride(0),
                c.stride(1), block_m, block_n, block_k, kGroupM, even_k, int64_idx);
  return c;
}

at::Tensor matmul_meta(const at::Tensor& a, const at::Tensor& b, bool ta, bool tb) {
  const Dims d = check_operands(a, b, ta, tb);
  return at::empty({d.m, d.n}, a.options());
}

class MatmulFunction : public ::torch::autograd::Function<MatmulFunction> {
 public:
  static at::Tensor forward(::torch::autograd::AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b, bool ta,
                            bool tb) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["ta"] = ta;
    ctx->saved_data["tb"] = tb;
    const at::AutoDispatchBelowADInplaceOrView guard;
    return matmul_op().call(a, b, ta, tb);
  }

  static ::torch::autograd::variable_list backward(::torch::autograd::AutogradContext* ctx,
                                                   ::torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& a = saved[0];
    const at::Tensor& b = saved[1];
    const bool ta = ctx->saved_data["ta"].toBool();
    const bool tb = ctx->saved_data["tb"].toBool();
    at::Tensor grad_a, grad_b;
    const at::Tensor& grad_c = grad_outputs[0];
    if (grad_c.defined()) {
      const at::Tensor dc = grad_c.to(a.scalar_type());
      if (ctx->needs_input_grad(0)) {
        grad_a = ta ? matmul_op().call(b, dc, tb, true) : matmul_op().call(dc, b, false, !tb);
      }
      if (ctx->needs_input_grad(1)) {
        grad_b = tb ? matmul_op().call(dc, a, true, ta) : matmul_op().call(a, dc, !ta, false);
      }
    }
    return {grad_a, grad_b, at::Tensor(), at::Tensor()};
  }
};

at::Tensor matmul_autograd(const at::Tensor& a, const at::Tensor& b, bool ta, bool tb) {
  return MatmulFunction::apply(a, b, ta, tb);
}

}  // namespace
}  // namespace triton_jit::ops

// The schema; TORCH_LIBRARY in register.cpp owns the namespace.
TORCH_LIBRARY_FRAGMENT(triton_jit_ops, m) {
  m.def("matmul(Tensor a, Tensor b, bool transpose_a=False, bool transpose_b=False) -> Tensor");
}

TORCH_LIBRARY_IMPL(triton_jit_ops, CUDA, m) { m.impl("matmul", &triton_jit::ops::matmul_cuda); }

TORCH_LIBRARY_IMPL(triton_jit_ops, Meta, m) { m.impl("matmul", &triton_jit::ops::matmul_meta); }

TORCH_LIBRARY_IMPL(triton_jit_ops, Autograd, m) { m.impl("matmul", &triton_jit::ops::matmul_autograd); }
