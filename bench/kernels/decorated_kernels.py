"""Kernels of the decorated-kernel benchmarks (bench/decorated_launch_bench.cpp,
bench/triton_python_decorated.py), written as kernel libraries write them.

bias_scale_kernel and scale_kernel are tiny (one program covers n <= 256), so a launch measures
the host side: what the decorators cost per call. matmul_kernel is a real tiled matmul with three
configs, for the time a tuning takes. Never pass 1 for an integer: Triton specializes an int
equal to 1 into a constexpr, which would drop it from the parameter list.
"""
import triton
import triton.language as tl

MAX_BLOCK = 4096


# Three translated lambdas, the common forms in fla-core and FlagGems: an optional tensor flagged
# by `is not None`, a power-of-two block, an evenness test that reads the block set just before
# (heuristics run in dict order and see the values set so far).
@triton.heuristics({
    "HAS_BIAS": lambda args: args["bias_ptr"] is not None,
    "BLOCK": lambda args: min(triton.next_power_of_2(args["n"]), MAX_BLOCK),
    "EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0,
})
@triton.jit
def bias_scale_kernel(x_ptr, bias_ptr, out_ptr, n, scale, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr,
                      EVEN_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = x * scale
    if HAS_BIAS:
        y += tl.load(bias_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, y, mask=offs < n)


# Three configs keyed by the size, the usual elementwise autotuner; callers launch it with
# grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),).
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 256}, num_warps=2),
        triton.Config({"BLOCK": 512}, num_warps=4),
        triton.Config({"BLOCK": 1024}, num_warps=8),
    ],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


# The tuning-time benchmark: a plain tiled fp16 matmul over three configs keyed by the
# shape, with a translated heuristic inside the autotuner (it sees the config's BLOCK_K).
@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        if EVEN_K:
            a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :], mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :], mask=rn[None, :] < N, other=0.0)
        else:
            a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K),
                        other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N),
                        other=0.0)
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))
