"""Kernels whose @triton.heuristics set launch options (num_warps, num_stages, num_ctas) beside
constexprs, written as FlagGems 5.0.2 writes its softmax (flag_gems/ops/softmax.py with the
heuristics of runtime/backend/_nvidia/heuristics_config_utils.py): TILE_N, ONE_TILE_PER_CTA and
num_warps from M and N. For tests/cpu/heuristic_options_test.cpp and the GPU tests."""
import triton
import triton.language as tl


# FlagGems' own heuristic functions for softmax_inner (plain defs with if/elif: the runtime runs
# them through Python, memoized by what they read).
def softmax_heur_tile_n_inner(args):
    if args["N"] <= (32 * 1024):
        return triton.next_power_of_2(args["N"])
    else:
        return 4096


def softmax_heur_one_tile_per_cta(args):
    return args["TILE_N"] >= args["N"]


def softmax_heur_num_warps_inner(args):
    tile_size = args["TILE_N"]
    if tile_size < 2048:
        return 4
    elif tile_size < 4096:
        return 8
    else:
        return 16


@triton.jit
def _softmax_rows(output_ptr, input_ptr, M, N, TILE_N: tl.constexpr, ONE_TILE_PER_CTA: tl.constexpr):
    pid_m = tl.program_id(0)
    if ONE_TILE_PER_CTA:
        n_offsets = tl.arange(0, TILE_N)
        offset = pid_m * N + n_offsets
        mask = n_offsets < N
        inp = tl.load(input_ptr + offset, mask=mask, other=-float("inf")).to(tl.float32)
        m = tl.max(inp, 0)
        e = tl.exp(inp - m)
        z = tl.sum(e, 0)
        tl.store(output_ptr + offset, e / z, mask=mask)
    else:
        m = tl.full([TILE_N], value=float("-inf"), dtype=tl.float32)
        z = tl.full([TILE_N], value=0.0, dtype=tl.float32)
        for start_n in range(0, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            mask = n_offsets < N
            inp = tl.load(input_ptr + pid_m * N + n_offsets, mask=mask,
                          other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, inp)
            all_neg_inf = m_new == float("-inf")
            z = tl.where(all_neg_inf, z, z * tl.exp(m - m_new) + tl.exp(inp - m_new))
            m = m_new
        m_reduced = tl.max(m, 0)
        z = tl.sum(z * tl.exp(m - m_reduced), 0)
        m = m_reduced
        for start_n in range(0, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            mask = n_offsets < N
            inp = tl.load(input_ptr + pid_m * N + n_offsets, mask=mask,
                          other=-float("inf")).to(tl.float32)
            tl.store(output_ptr + pid_m * N + n_offsets, tl.exp(inp - m) / z, mask=mask)


# As FlagGems' softmax_kernel_inner (without its @libentry(): tests/kernels/libentry_kernels.py
# has that one).
@triton.heuristics({
    "TILE_N": softmax_heur_tile_n_inner,
    "ONE_TILE_PER_CTA": softmax_heur_one_tile_per_cta,
    "num_warps": softmax_heur_num_warps_inner,
})
@triton.jit
def softmax_inner_kernel(output_ptr, input_ptr, M, N, TILE_N: tl.constexpr, ONE_TILE_PER_CTA: tl.constexpr):
    _softmax_rows(output_ptr, input_ptr, M, N, TILE_N, ONE_TILE_PER_CTA)


# The same heuristics as lambdas: translated, evaluated in C++ without Python.
@triton.heuristics({
    "TILE_N": lambda args: triton.next_power_of_2(args["N"]) if args["N"] <= 32 * 1024 else 4096,
    "ONE_TILE_PER_CTA": lambda args: args["TILE_N"] >= args["N"],
    "num_warps": lambda args: 4 if args["TILE_N"] < 2048 else (8 if args["TILE_N"] < 4096 else 16),
    "num_stages": lambda args: 1 if args["M"] > 64 else 2,
})
@triton.jit
def softmax_lambda_kernel(output_ptr, input_ptr, M, N, TILE_N: tl.constexpr, ONE_TILE_PER_CTA: tl.constexpr):
    _softmax_rows(output_ptr, input_ptr, M, N, TILE_N, ONE_TILE_PER_CTA)


# Under an autotuner, as FlagGems' softmax backward kernels: each config's num_warps is what
# Autotuner.run passes, and the heuristic below it overrides it (Heuristics.run sets the keyword
# last); num_stages stays the config's.
@triton.autotune(
    configs=[
        triton.Config({"TILE_M": 1}, num_warps=2, num_stages=1),
        triton.Config({"TILE_M": 2}, num_warps=8, num_stages=2),
    ],
    key=["M", "N"],
)
@triton.heuristics({
    "TILE_N": lambda args: min(triton.next_power_of_2(args["N"]), 4096),
    "num_warps": lambda args: args["TILE_M"] * (4 if args["TILE_N"] < 2048 else 8),
})
@triton.jit
def tuned_rows_kernel(output_ptr, input_ptr, M, N, TILE_M: tl.constexpr, TILE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, TILE_N)
    for i in range(TILE_M):
        row = pid * TILE_M + i
        for start in range(0, N, TILE_N):
            c = start + cols
            mask = (row < M) & (c < N)
            x = tl.load(input_ptr + row * N + c, mask=mask, other=0.0)
            tl.store(output_ptr + row * N + c, x * 2, mask=mask)


# A heuristic may return None (JITFunction.run then takes Triton's default) or a bool (Python's
# int): num_ctas=True is 1.
@triton.heuristics({
    "BLOCK": lambda args: 128,
    "num_warps": lambda args: None if args["n"] < 1000 else 2,
    "num_ctas": lambda args: args["n"] > 0,
})
@triton.jit
def none_and_bool_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


# num_warps values Triton refuses (CUDAOptions asserts a power of two).
@triton.heuristics({
    "BLOCK": lambda args: 128,
    "num_warps": lambda args: 4 if args["n"] < 100 else (3 if args["n"] < 1000 else 4.0),
})
@triton.jit
def bad_warps_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


def _python_bad_warps(args):
    for w in (6, ):  # a loop: runs through Python, not translated
        return w if args["n"] > 10 else 1


@triton.heuristics({"BLOCK": lambda args: 128, "num_warps": _python_bad_warps})
@triton.jit
def python_bad_warps_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


# Above an autotuner: Autotuner.run passes config.all_kwargs() (num_warps included) beside the
# heuristic's num_warps, and Triton's call fails with TypeError. Refused at load.
@triton.heuristics({"num_warps": lambda args: 8})
@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2)], key=["n"])
@triton.jit
def heuristics_above_autotune_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


# A compile option other than num_warps/num_stages/num_ctas: refused at load.
@triton.heuristics({"BLOCK": lambda args: 128, "maxnreg": lambda args: 128})
@triton.jit
def maxnreg_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


# A later heuristic reading the launch option an earlier one set: Triton's args hold it (BLOCK
# 256); the runtime passes parameters only and says so, rather than run otherwise.
@triton.heuristics({
    "num_warps": lambda args: 8,
    "BLOCK": lambda args: args["num_warps"] * 32,
})
@triton.jit
def reads_num_warps_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


# num_stages left to the target by a heuristic's None and by a config's num_stages=None (which
# all_kwargs drops): Triton's launch then takes the backend's default, 2 on AMD and 3 on NVIDIA.
@triton.heuristics({"num_stages": lambda args: None if args["n"] < 1000 else 4})
@triton.jit
def stages_none_kernel(x_ptr, n, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_stages=None)], key=["n"])
@triton.jit
def config_stages_none_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)
