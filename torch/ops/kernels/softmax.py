"""Row softmax kernels of triton_jit_ops::softmax.

The operator (src/softmax.cpp) moves the softmax dimension last and makes the input contiguous, so
both kernels see an [M, N] row-major matrix whose rows are reduced. Math is fp32 whatever the
storage dtype, and the row maximum is subtracted before exponentiation (numerically stable).

softmax_kernel: BLOCK_N >= N, the whole row in registers (one pass over memory); BLOCK_M rows per
    program so short rows still give each program enough work.
softmax_online_kernel: rows longer than one block; pass 1 keeps a per-lane running maximum and
    rescaled sum (online softmax), pass 2 reads the row again and writes exp(x - max) / sum.
"""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, x_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offsets = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=-float("inf")).to(tl.float32)
    row_max = tl.max(x, axis=1)
    e = tl.exp(x - row_max[:, None])  # masked lanes: exp(-inf) = 0
    denom = tl.sum(e, axis=1)
    y = e * (1.0 / denom)[:, None]
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online_kernel(out_ptr, x_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    out_row = out_ptr + row * N
    cols = tl.arange(0, BLOCK_N)

    # Pass 1: per lane, the running maximum m and the sum d of exp(x - m) over the lane's elements.
    m = tl.full([BLOCK_N], -float("inf"), tl.float32)
    d = tl.zeros([BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # A lane that has seen only -inf keeps m_new = -inf: avoid (-inf) - (-inf) = nan there.
        alive = m_new > -float("inf")
        d = tl.where(alive, d * tl.exp(m - m_new) + tl.exp(x - m_new), d)
        m = m_new
    row_max = tl.max(m, axis=0)
    # Lanes with m = -inf contribute nothing; a row of only -inf gives 0 / 0 = nan, as torch does.
    scale = tl.where(m > -float("inf"), tl.exp(m - row_max), 0.0)
    inv_denom = 1.0 / tl.sum(d * scale, axis=0)

    # Pass 2: normalize.
    for start in range(0, N, BLOCK_N):
        offs = start + cols
        mask = offs < N
        x = tl.load(x_row + offs, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv_denom
        tl.store(out_row + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
