// triton_jit_ops::sum(Tensor x, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
// -> Tensor, with torch.sum's dims, keepdim and dtype rules. CUDA (Triton kernels in
// kernels/sum.py) and Meta (shape and dtype only) implementations.
//
// The input is viewed as a contiguous [M, N, K] and N is reduced: full reductions are [1, n, 1];
// one dim (or several adjacent ones) d: M = the sizes before, N = d's, K = the sizes after. Other
// sets of dims are moved last (permute + contiguous: one copy) and K = 1. Non-contiguous inputs
// are made contiguous first.
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <algorithm>
#include <bitset>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "kernels.h"

namespace triton_jit::ops {
namespace {

constexpr const char* kSumOp = "triton_jit_ops::sum";

struct Plan {
  std::vector<int64_t> out_shape;
  c10::ScalarType out_dtype;
  std::bitset<at::dim_bitset_size> reduced;  // over x's dims
};

// Checks and output metadata, shared by the CUDA and Meta implementations.
Plan make_plan(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim, std::optional<c10::ScalarType> dtype) {
  TORCH_CHECK(x.defined(), kSumOp, ": undefined tensor argument");
  TORCH_CHECK(elementwise_dtype(x.scalar_type()), kSumOp, ": unsupported dtype ", x.scalar_type(),
              " (supported: float32, float16, bfloat16, float64, bool and integer types)");
  Plan p;
  // torch.sum: integer and bool inputs sum to int64 unless a dtype is given.
  p.out_dtype = dtype ? *dtype
                      : (c10::isIntegralType(x.scalar_type(), /*includeBool=*/true) ? c10::kLong : x.scalar_type());
  TORCH_CHECK(elementwise_dtype(p.out_dtype), kSumOp, ": unsupported result dtype ", p.out_dtype);
  const int64_t ndim = x.dim();
  if (!dim.has_value() || dim->empty()) {
    // dim=None and dim=[] reduce every dim.
    for (int64_t d = 0; d < ndim; ++d) p.reduced.set(d);
  } else {
    // Wraps negative dims, rejects out-of-range and repeated ones (a 0-dim tensor takes 0 and -1).
    for (const int64_t d : *dim) check_dim("sum", d, ndim);
    p.reduced = at::dim_list_to_bitset(*dim, ndim);
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (!p.reduced[d]) {
      p.out_shape.push_back(x.size(d));
    } else if (keepdim) {
      p.out_shape.push_back(1);
    }
  }
  return p;
}

c10::ScalarType acc_dtype(c10::ScalarType result) {
  if (result == c10::kDouble) return c10::kDouble;
  if (c10::isFloatingType(result)) return c10::kFloat;
  return c10::kLong;
}

int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// Heuristics, shared by both kernels:
// - a tile (elements loaded per program per loop step) of at most kTile = 4096 elements, the
//   reduced axis taking what it needs (up to 4096 for sum_last, the rest after BLOCK_K for
//   sum_mid);
// - one warp per 512 tile elements, 1 to 8 (16 fp32 per thread and step at 4096);
// - when fewer than kTargetPrograms (about four per SM of an H100's 132) programs cover the
//   output and N is long, N is split into chunks of at least kMinChunkBlocks tiles, over at most
//   kTargetPrograms programs in all; the partial sums (accumulator dtype) are reduced by a second
//   launch of the same kernel.
constexpr int64_t kTile = 4096;
constexpr int64_t kTargetPrograms = 512;
constexpr int64_t kMinChunkBlocks = 4;

int warps_for(int64_t tile) { return static_cast<int>(std::clamp<int64_t>(tile / 512, 1, 8)); }

// The number of splits of N and the chunk each takes (a multiple of block_n).
std::pair<int64_t, int64_t> split_n(int64_t programs, int64_t n, int64_t block_n) {
  int64_t splits = 1;
  if (programs < kTargetPrograms && n > kMinChunkBlocks * block_n) {
    splits = std::min(cdiv(kTargetPrograms, programs), cdiv(n, kMinChunkBlocks * block_n));
  }
  const int64_t chunk = cdiv(cdiv(n, splits), block_n) * block_n;
  return {cdiv(n, chunk), chunk};
}

// out[m] = sum over n of x[m, n], x contiguous [M, N]; res is the final result (its dtype picks
// the accumulator), out is res or a partial-sum buffer of a caller's split.
void reduce_last(const at::Tensor& x, const at::Tensor& out, const at::Tensor& res, int64_t m, int64_t n, bool first) {
  static TritonJitFunction& k = kernel("sum.py", "sum_last_kernel");
  const int64_t block_n = std::min(next_pow2(n), kTile);
  int64_t block_m = std::min(next_pow2(m), std::max<int64_t>(1, kTile / block_n));
  // Smaller row blocks while that gives more programs, down to the target.
  while (block_m > 1 && cdiv(m, block_m) < kTargetPrograms) block_m /= 2;
  const int64_t row_programs = cdiv(m, block_m);
  const auto [splits, chunk] = split_n(row_programs, n, block_n);
  const int warps = warps_for(block_m * block_n);
  if (splits == 1) {
    torch::launch(k, LaunchConfig{Grid(row_programs, 1), warps}, x, out, res, m, n, chunk, block_m, block_n, first);
    return;
  }
  const at::Tensor partial = at::empty({m, splits}, x.options().dtype(acc_dtype(res.scalar_type())));
  torch::launch(k, LaunchConfig{Grid(row_programs, splits), warps}, x, partial, res, m, n, chunk, block_m, block_n,
                first);
  reduce_last(partial, out, res, m, splits, /*first=*/false);
}

// out[m, k] = sum over n of x[m, n, k], x contiguous [M, N, K], K > 1.
void reduce_mid(const at::Tensor& x, const at::Tensor& out, const at::Tensor& res, int64_t m, int64_t n, int64_t k_size,
                bool first) {
  static TritonJitFunction& k = kernel("sum.py", "sum_mid_kernel");
  // 128 contiguous kept elements per row of the tile (512 bytes of fp32), N takes the rest.
  const int64_t block_k = std::min<int64_t>(next_pow2(k_size), 128);
  const int64_t block_n = std::min(next_pow2(n), std::max<int64_t>(1, kTile / block_k));
  const int64_t k_blocks = cdiv(k_size, block_k);
  const int64_t programs = m * k_blocks;
  TORCH_CHECK(programs <= std::numeric_limits<int32_t>::max(), kSumOp, ": output too large for one launch");
  const auto [splits, chunk] = split_n(programs, n, block_n);
  const int warps = warps_for(block_n * block_k);
  if (splits == 1) {
    torch::launch(k, LaunchConfig{Grid(programs, 1), warps}, x, out, res, m, n, k_size, chunk, k_blocks, block_n,
                  block_k, first);
    return;
  }
  const at::Tensor partial = at::empty({m, splits, k_size}, x.options().dtype(acc_dtype(res.scalar_type())));
  torch::launch(k, LaunchConfig{Grid(programs, splits), warps}, x, partial, res, m, n, k_size, chunk, k_blocks, block_n,
                block_k, first);
  reduce_mid(partial, out, res, m, splits, k_size, /*first=*/false);
}

at::Tensor sum_cuda(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype) {
  const Plan p = make_plan(x, dim, keepdim, dtype);
  TORCH_CHECK(x.is_cuda(), kSumOp, ": expected a CUDA tensor, got a tensor on ", x.device());
  at::Tensor out = at::empty(p.out_shape, x.options().dtype(p.out_dtype));
  if (out.numel() == 0) return out;
  if (x.numel() == 0) return out.zero_();  // sums of nothing

  // Dims of size 1 may count as reduced or kept; the others decide whether the reduced ones are
  // adjacent (one [M, N, K] view of x) or must be moved last.
  const int64_t ndim = x.dim();
  int64_t first_r = -1, last_r = -1;
  for (int64_t d = 0; d < ndim; ++d) {
    if (p.reduced[d] && x.size(d) != 1) {
      if (first_r < 0) first_r = d;
      last_r = d;
    }
  }
  bool adjacent = true;
  for (int64_t d = first_r + 1; first_r >= 0 && d < last_r; ++d) {
    if (!p.reduced[d] && x.size(d) != 1) adjacent = false;
  }

  int64_t m = 1, n = 1, k = 1;
  at::Tensor xc;
  if (first_r < 0) {  // nothing of size > 1 reduced: a conversion, N = 1
    xc = x.contiguous();
    m = x.numel();
  } else if (adjacent) {
    xc = x.contiguous();
    for (int64_t d = 0; d < ndim; ++d) {
      (d < first_r ? m : d <= last_r ? n : k) *= x.size(d);
    }
  } else {
    std::vector<int64_t> order;
    for (int64_t d = 0; d < ndim; ++d) {
      if (!p.reduced[d]) order.push_back(d);
    }
    for (int64_t d = 0; d < ndim; ++d) {
      if (p.reduced[d]) {
        order.push_back(d);
        n *= x.size(d);
      }
    }
    xc = x.permute(order).contiguous();
    m = x.numel() / n;
  }

  if (k == 1) {
    reduce_last(xc, out, out, m, n, /*first=*/true);
  } else {
    reduce_mid(xc, out, out, m, n, k, /*first=*/true);
  }
  return out;
}

// Shape and dtype only (FakeTensor, torch.compile).
at::Tensor sum_meta(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype) {
  const Plan p = make_plan(x, dim, keepdim, dtype);
  return at::empty(p.out_shape, x.options().dtype(p.out_dtype).device(c10::kMeta));
}

}  // namespace
}  // namespace triton_jit::ops

// The schema; TORCH_LIBRARY in register.cpp owns the namespace.
TORCH_LIBRARY_FRAGMENT(triton_jit_ops, m) {
  m.def("sum(Tensor x, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(triton_jit_ops, CUDA, m) { m.impl("sum", &triton_jit::ops::sum_cuda); }

TORCH_LIBRARY_IMPL(triton_jit_ops, Meta, m) { m.impl("sum", &triton_jit::ops::sum_meta); }
