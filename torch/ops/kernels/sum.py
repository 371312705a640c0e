# Triton kernels of triton_jit_ops::sum. The host views the (contiguous) input as [M, N, K] and
# reduces N: sum_last_kernel when K == 1 (the reduced elements are contiguous; a full reduction is
# M == 1), sum_mid_kernel otherwise (the K kept elements of a step are contiguous).
#
# Both kernels can split N over S programs (grid axis 1, S = tl.num_programs(1)), each summing a
# CHUNK of N and writing a partial sum to out_ptr laid out [M, S] / [M, S, K]; the host then
# reduces the partials with the same kernel (S = 1, FIRST = False). Without a split out_ptr is the
# result itself.
#
# res_ptr is always the final result: its element type picks the accumulator (fp32 for fp16 /
# bf16 / fp32 results, fp64 for fp64, int64 for integer and bool results) and, on the first pass
# (FIRST), the input is converted to it before accumulating, as torch.sum(x, dtype=...) first
# converts x. Stores convert to out_ptr's type (bool results: != 0). Offsets are 64-bit.
import triton
import triton.language as tl


@triton.jit
def sum_last_kernel(x_ptr, out_ptr, res_ptr, M, N, CHUNK,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, FIRST: tl.constexpr):
    """x: [M, N] contiguous; out[m, s] = sum of x[m, s*CHUNK : (s+1)*CHUNK]."""
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    num_s = tl.num_programs(1)
    res_ty: tl.constexpr = res_ptr.dtype.element_ty
    acc_ty: tl.constexpr = (tl.float64 if res_ty.is_fp64() else tl.float32) if res_ty.is_floating() else tl.int64
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    n_start = pid_s.to(tl.int64) * CHUNK
    n_end = tl.minimum(n_start + CHUNK, N)
    row_ptrs = x_ptr + rows[:, None] * N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=acc_ty)
    for n0 in range(n_start, n_end, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < n_end)[None, :]
        x = tl.load(row_ptrs + cols[None, :], mask=mask, other=0)
        if FIRST:
            x = x.to(res_ty)
        acc += x.to(acc_ty)
    total = tl.sum(acc, axis=1)
    tl.store(out_ptr + rows * num_s + pid_s, total.to(out_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def sum_mid_kernel(x_ptr, out_ptr, res_ptr, M, N, K, CHUNK, K_BLOCKS,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, FIRST: tl.constexpr):
    """x: [M, N, K] contiguous; out[m, s, k] = sum of x[m, s*CHUNK : (s+1)*CHUNK, k].
    Grid axis 0 enumerates (m, block of K) pairs: m = pid // K_BLOCKS."""
    pid = tl.program_id(0)
    pid_s = tl.program_id(1)
    num_s = tl.num_programs(1)
    res_ty: tl.constexpr = res_ptr.dtype.element_ty
    acc_ty: tl.constexpr = (tl.float64 if res_ty.is_fp64() else tl.float32) if res_ty.is_floating() else tl.int64
    m = (pid // K_BLOCKS).to(tl.int64)
    ks = (pid % K_BLOCKS).to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K)
    k_mask = ks < K
    n_start = pid_s.to(tl.int64) * CHUNK
    n_end = tl.minimum(n_start + CHUNK, N)
    base = x_ptr + m * N * K
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=acc_ty)
    for n0 in range(n_start, n_end, BLOCK_N):
        ns = n0 + tl.arange(0, BLOCK_N)
        mask = (ns < n_end)[:, None] & k_mask[None, :]
        x = tl.load(base + ns[:, None] * K + ks[None, :], mask=mask, other=0)
        if FIRST:
            x = x.to(res_ty)
        acc += x.to(acc_ty)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + (m * num_s + pid_s) * K + ks, total.to(out_ptr.dtype.element_ty), mask=k_mask)
