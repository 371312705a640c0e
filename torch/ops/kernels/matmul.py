"""The tiled matrix product of triton_jit_ops::matmul: C[M, N] = A[M, K] @ B[K, N].

A and B are addressed through their strides, so transposed operands (transpose_a/transpose_b of
the operator, which swaps the strides it passes) and other strided views are read in place.
Products accumulate in fp32 with tl.dot (fp32 inputs use Triton's default input precision, tf32);
C is stored in its pointer's dtype.

Programs are grouped GROUP_M tile-rows at a time (the "swizzle" of Triton's matmul tutorial) so
programs running together share A and B tiles in L2. Rows and columns past M and N are clamped
with a modulo on load (and masked on store), so only the K remainder needs load masks, and not even
those when EVEN_K (K % BLOCK_K == 0). INT64_IDX makes all offsets 64-bit, for operands whose
element offsets do not fit in int32.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, INT64_IDX: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    if INT64_IDX:
        ram = ram.to(tl.int64)
        rbn = rbn.to(tl.int64)
        rk = rk.to(tl.int64)
        rm = rm.to(tl.int64)
        rn = rn.to(tl.int64)
        stride_am = tl.cast(stride_am, tl.int64)
        stride_ak = tl.cast(stride_ak, tl.int64)
        stride_bk = tl.cast(stride_bk, tl.int64)
        stride_bn = tl.cast(stride_bn, tl.int64)
        stride_cm = tl.cast(stride_cm, tl.int64)
        stride_cn = tl.cast(stride_cn, tl.int64)
    a_ptrs = a_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    b_ptrs = b_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=rk[None, :] < k_left, other=0.0)
            b = tl.load(b_ptrs, mask=rk[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    tl.store(c_ptrs, c, mask=(rm[:, None] < M) & (rn[None, :] < N))
