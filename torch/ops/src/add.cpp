// triton_jit_ops::add(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor: a + alpha * b with
// torch.add's broadcasting, type promotion and alpha rules. CUDA (Triton kernels in
// kernels/add.py) and Meta (shape and dtype only) implementations.
#include <ATen/ExpandUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/result_type.h>
#include <torch/library.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels.h"

namespace triton_jit::ops {
namespace {

constexpr const char* kAddOp = "triton_jit_ops::add";

// Checks shared by the CUDA and Meta implementations; returns the result dtype.
c10::ScalarType check_and_result_type(const at::Tensor& a, const at::Tensor& b, const c10::Scalar& alpha) {
  TORCH_CHECK(a.defined() && b.defined(), kAddOp, ": undefined tensor argument");
  for (const at::Tensor* t : {&a, &b}) {
    TORCH_CHECK(elementwise_dtype(t->scalar_type()), kAddOp, ": unsupported dtype ", t->scalar_type(),
                " (supported: float32, float16, bfloat16, float64, bool and integer types)");
  }
  const c10::ScalarType result = at::result_type(a, b);
  TORCH_CHECK(elementwise_dtype(result), kAddOp, ": unsupported result dtype ", result);
  // torch.add's rules: bool alpha only for bool results, no floating alpha for integral results,
  // no complex alpha.
  at::native::alpha_check(result, alpha);
  return result;
}

bool alpha_is_one(const c10::Scalar& alpha) {
  if (alpha.isBoolean()) return alpha.toBool();
  if (alpha.isIntegral(/*includeBool=*/false)) return alpha.toLong() == 1;
  return alpha.toDouble() == 1.0;
}

// Elementwise launch heuristic: 1024 elements per program (8 fp32 per thread with 4 warps: two
// 16-byte accesses per thread and operand) for large tensors; small tensors take one program of
// the next power of two of n, at least 128, with a warp per 256 elements (1, 2 or 4 warps). Only
// four block sizes exist, so few variants are compiled.
std::pair<int64_t, int> elementwise_block(int64_t n) {
  int64_t block = 128;
  while (block < n && block < 1024) block *= 2;
  const int warps = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(4, block / 256)));
  return {block, warps};
}

// Sizes and strides (in elements) of the output's iteration space for two operands, with size-1
// dims dropped and adjacent dims merged where both operands allow it (TensorIterator's
// coalescing). The output is contiguous, so it never prevents a merge. Outer dims first.
struct Coalesced {
  std::vector<int64_t> sizes, sa, sb;
};

Coalesced coalesce(at::IntArrayRef shape, at::IntArrayRef sa, at::IntArrayRef sb) {
  Coalesced r;  // built innermost first, reversed at the end
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    if (!r.sizes.empty()) {
      const int64_t inner_size = r.sizes.back();
      if (sa[d] == r.sa.back() * inner_size && sb[d] == r.sb.back() * inner_size) {
        r.sizes.back() *= shape[d];
        continue;
      }
    }
    r.sizes.push_back(shape[d]);
    r.sa.push_back(sa[d]);
    r.sb.push_back(sb[d]);
  }
  if (r.sizes.empty()) {  // a single element
    r.sizes.push_back(1);
    r.sa.push_back(0);
    r.sb.push_back(0);
  }
  std::reverse(r.sizes.begin(), r.sizes.end());
  std::reverse(r.sa.begin(), r.sa.end());
  std::reverse(r.sb.begin(), r.sb.end());
  return r;
}

constexpr size_t kMaxStridedDims = 4;  // add_strided_kernel's dims

// Same-layout dense inputs (contiguous, channels-last, any permutation): the output takes their
// strides and the three tensors are walked as flat arrays. The Meta kernel uses the same rule, so
// FakeTensor strides match the real ones.
bool same_layout(const at::Tensor& a, const at::Tensor& b, at::IntArrayRef shape) {
  return a.sizes() == shape && b.sizes() == shape && a.strides() == b.strides() && a.is_non_overlapping_and_dense();
}

at::Tensor add_cuda(const at::Tensor& a_in, const at::Tensor& b_in, const c10::Scalar& alpha) {
  const c10::ScalarType result = check_and_result_type(a_in, b_in, alpha);

  // A CPU 0-dim tensor may join a CUDA tensor, as in torch; any other mix is an error.
  at::Tensor a = a_in, b = b_in;
  if (a.device() != b.device()) {
    if (!a.is_cuda() && a.dim() == 0 && b.is_cuda()) {
      a = a.to(b.device());
    } else if (!b.is_cuda() && b.dim() == 0 && a.is_cuda()) {
      b = b.to(a.device());
    } else {
      TORCH_CHECK(false, kAddOp, ": expected all tensors on one device, got ", a.device(), " and ", b.device());
    }
  }
  TORCH_CHECK(a.is_cuda(), kAddOp, ": expected CUDA tensors, got tensors on ", a.device());

  const std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
  const auto options = a.options().dtype(result);
  const bool flat_layout = same_layout(a, b, shape);
  at::Tensor out = flat_layout ? at::empty_strided(shape, a.strides(), options) : at::empty(shape, options);
  const int64_t n = out.numel();
  if (n == 0) return out;

  const bool has_alpha = !alpha_is_one(alpha);
  const bool floating = c10::isFloatingType(result);
  const double alpha_f = has_alpha && floating ? alpha.toDouble() : 0.0;
  const int64_t alpha_i = has_alpha && !floating ? alpha.toLong() : 0;
  const auto [block, warps] = elementwise_block(n);
  const LaunchConfig config{Grid(cdiv(n, block)), warps};

  static TritonJitFunction& flat = kernel("add.py", "add_kernel");
  if (flat_layout) {
    torch::launch(flat, config, a, b, out, n, alpha_f, alpha_i, block, has_alpha);
    return out;
  }

  // Broadcast or differently strided inputs: expanded views (stride 0 on broadcast dims),
  // coalesced; up to 4 dims go to the strided kernel, more are made contiguous first.
  const at::Tensor ae = a.expand(shape), be = b.expand(shape);
  Coalesced c = coalesce(shape, ae.strides(), be.strides());
  if (c.sizes.size() <= kMaxStridedDims) {
    while (c.sizes.size() < kMaxStridedDims) {
      c.sizes.insert(c.sizes.begin(), 1);
      c.sa.insert(c.sa.begin(), 0);
      c.sb.insert(c.sb.begin(), 0);
    }
    static TritonJitFunction& strided = kernel("add.py", "add_strided_kernel");
    torch::launch(strided, config, ae, be, out, n, c.sizes[1], c.sizes[2], c.sizes[3], c.sa[0], c.sa[1], c.sa[2],
                  c.sa[3], c.sb[0], c.sb[1], c.sb[2], c.sb[3], alpha_f, alpha_i, block, has_alpha);
    return out;
  }
  const at::Tensor ac = ae.contiguous(), bc = be.contiguous();
  torch::launch(flat, config, ac, bc, out, n, alpha_f, alpha_i, block, has_alpha);
  return out;
}

// Shape, dtype and strides only (FakeTensor, torch.compile), as add_cuda lays its output out.
at::Tensor add_meta(const at::Tensor& a, const at::Tensor& b, const c10::Scalar& alpha) {
  const c10::ScalarType result = check_and_result_type(a, b, alpha);
  const std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
  const auto options = a.options().dtype(result).device(c10::kMeta);
  return same_layout(a, b, shape) ? at::empty_strided(shape, a.strides(), options) : at::empty(shape, options);
}

}  // namespace
}  // namespace triton_jit::ops

// The schema; TORCH_LIBRARY in register.cpp owns the namespace.
TORCH_LIBRARY_FRAGMENT(triton_jit_ops, m) { m.def("add(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor"); }

TORCH_LIBRARY_IMPL(triton_jit_ops, CUDA, m) { m.impl("add", &triton_jit::ops::add_cuda); }

TORCH_LIBRARY_IMPL(triton_jit_ops, Meta, m) { m.impl("add", &triton_jit::ops::add_meta); }
