"""Kernels behind @triton.heuristics and @triton.autotune, written the way kernel libraries write
them: tiled, autotuned over several configs keyed by the problem size, optional tensors flagged
by `is not None`, power-of-two blocks, helper functions with loops, and heuristics that are plain
Python functions rather than lambdas."""
import triton
import triton.language as tl

MAX_FUSED = 4096


@triton.jit
def _accumulate_rows(acc, x_ptr, row, stride, cols, mask, NUM_CHUNKS: tl.constexpr, BLOCK_N: tl.constexpr):
    for i in range(NUM_CHUNKS):
        offs = i * BLOCK_N + cols
        acc += tl.load(x_ptr + row * stride + offs, mask=mask & (offs < stride), other=0.0).to(tl.float32)
    return acc


@triton.heuristics({
    "HAS_BIAS": lambda args: args["bias"] is not None,
    "BLOCK_N": lambda args: min(triton.next_power_of_2(args["N"]), MAX_FUSED),
    "EVEN_N": lambda args: args["N"] % min(triton.next_power_of_2(args["N"]), MAX_FUSED) == 0,
})
@triton.jit
def row_sum_kernel(x_ptr, bias, out_ptr, M, N, stride, HAS_BIAS: tl.constexpr, BLOCK_N: tl.constexpr,
                   EVEN_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N if not EVEN_N else cols < BLOCK_N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc = _accumulate_rows(acc, x_ptr, row, stride, cols, mask, 1, BLOCK_N)
    total = tl.sum(acc, axis=0)
    if HAS_BIAS:
        total += tl.load(bias + row).to(tl.float32)
    tl.store(out_ptr + row, total)


def _num_stages(args):
    # Not a lambda, with a loop: the runtime runs it through Python and memoizes by what it reads.
    stages = 1
    k = args["K"]
    while k > 64 and stages < 4:
        k //= 2
        stages += 1
    return stages


@triton.heuristics({"SPLIT": _num_stages})
@triton.jit
def stages_kernel(x_ptr, K, other, SPLIT: tl.constexpr):
    for _ in range(SPLIT):
        tl.store(x_ptr + tl.arange(0, 16), tl.load(x_ptr + tl.arange(0, 16)) + K)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.heuristics({
    "EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
    "SPLIT": _num_stages,
})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr,
                  SPLIT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        if EVEN_K:
            a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak, mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn, mask=rn[None, :] < N, other=0.0)
        else:
            a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


# Heuristics outside the autotuner: they see only the caller's arguments, and the autotuner's key
# includes what they set.
@triton.heuristics({"IS_FP16": lambda args: args["x_ptr"].element_size() == 2})
@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024}, num_warps=8)],
                 key=["n", "IS_FP16"])
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, IS_FP16: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x.to(tl.float32) * alpha
    tl.store(y_ptr + offs, y.to(tl.float16) if IS_FP16 else y, mask=mask)


# Accumulates into `out` with atomics: every timed run adds again, so tuning must zero it.
@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 512})], key=["n"],
                 reset_to_zero=["out_ptr"])
@triton.jit
def atomic_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


# Updates `x` in place: every timed run would scale it again, so tuning must restore it.
@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"],
                 restore_value=["x_ptr"])
@triton.jit
def inplace_scale_kernel(x_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


# One config: no tuning, the config is applied as given (Triton does the same).
@triton.autotune(configs=[triton.Config({"BLOCK": 512}, num_warps=2, num_stages=2)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def single_config_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1)
    else:
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


# Tuning results shared with Triton's own autotuner through its cache (cache_results=True).
@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256}, num_warps=8)], key=["n"],
                 cache_results=True)
@triton.jit
def cached_tuning_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def _blocks_within_n(configs, named_args, **kwargs):
    # early_config_prune as libraries write it: drop blocks larger than the problem.
    return [c for c in configs if c.kwargs["BLOCK"] <= max(named_args["n"], 128)]


def _estimate(x_ptr, n, BLOCK, num_warps, **kwargs):
    # perf_model: a made-up cost that prefers the config nearest n.
    return abs(BLOCK - n) + num_warps


# Configs pruned by Triton's own prune_configs_by, run through Python on the caller's arguments.
@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((128, 4), (256, 4), (512, 8), (1024, 8))],
    key=["n"],
    prune_configs_by={"early_config_prune": _blocks_within_n, "perf_model": _estimate, "top_k": 2},
)
@triton.jit
def pruned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
