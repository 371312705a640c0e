"""Kernels written as FlagGems writes them: @libentry() (FlagGems 5.0.2's own LibEntry, loaded by
tests/support/flaggems_libentry.py with its device runtime stubbed) over @triton.autotune over
@triton.heuristics over a tiled @triton.jit kernel with helper functions. For tests/cpu/libentry_test.cpp
(tests/support must be on sys.path)."""
import builtins

import triton
import triton.language as tl
from flaggems_libentry import libentry


@triton.jit
def _load_row_tile(X, row, stride, cols, mask):
    return tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)


@triton.jit
def _activate(x, ACT: tl.constexpr):
    if ACT == "relu":
        return tl.maximum(x, 0.0)
    return x


def _block_n(args):
    # As FlagGems' heuristics do: a tile from a size that LibEntry does not key by (N is
    # do_not_specialize), so a key's first call decides it for every later call of the key.
    return min(triton.next_power_of_2(args["N"]), 256)


@libentry()
@triton.autotune(
    configs=[
        triton.Config({"TILE_M": 1}, num_warps=4, num_stages=2),
        triton.Config({"TILE_M": 2}, num_warps=2, num_stages=1),
    ],
    key=["M", "N"],
)
@triton.heuristics(values={
    "BLOCK_N": _block_n,
    "EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0,
})
@triton.jit(do_not_specialize=["N"])
def scaled_rows_kernel(X, Y, M, N, stride, alpha, TILE_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       EVEN_N: tl.constexpr, ACT: tl.constexpr = "none"):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    for i in range(TILE_M):
        row = pid * TILE_M + i
        for start in range(0, N, BLOCK_N):
            c = start + cols
            if EVEN_N:
                mask = (row < M) & (c >= 0)
            else:
                mask = (row < M) & (c < N)
            x = _load_row_tile(X, row, stride, c, mask)
            y = _activate(x * alpha, ACT)
            tl.store(Y + row * stride + c, y.to(Y.dtype.element_ty), mask=mask)


def _count_pre_hook(nargs):
    builtins.libentry_pre_hook_calls = getattr(builtins, "libentry_pre_hook_calls", 0) + 1


@libentry()
@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2, pre_hook=_count_pre_hook)], key=["n"])
@triton.jit
def hooked_kernel(X, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + offs, tl.zeros((BLOCK, ), tl.float32), mask=offs < n)


# FlagGems' softmax_kernel_inner as FlagGems 5.0.2 writes it: its heuristics set TILE_N,
# ONE_TILE_PER_CTA and the launch option num_warps from N (here do_not_specialize, so that a
# key's first call freezes num_warps for later calls with another N, as LibEntry replays its
# frozen kernel).
def _softmax_tile_n(args):
    if args["N"] <= (32 * 1024):
        return triton.next_power_of_2(args["N"])
    else:
        return 4096


def _softmax_num_warps(args):
    tile_size = args["TILE_N"]
    if tile_size < 2048:
        return 4
    elif tile_size < 4096:
        return 8
    else:
        return 16


@libentry()
@triton.heuristics({
    "TILE_N": _softmax_tile_n,
    "ONE_TILE_PER_CTA": lambda args: args["TILE_N"] >= args["N"],
    "num_warps": _softmax_num_warps,
})
@triton.jit(do_not_specialize=["N"])
def softmax_entry_kernel(output_ptr, input_ptr, M, N, TILE_N: tl.constexpr, ONE_TILE_PER_CTA: tl.constexpr):
    pid_m = tl.program_id(0)
    n_offsets = tl.arange(0, TILE_N)
    mask = n_offsets < N
    inp = tl.load(input_ptr + pid_m * N + n_offsets, mask=mask, other=-float("inf"))
    e = tl.exp(inp - tl.max(inp, 0))
    tl.store(output_ptr + pid_m * N + n_offsets, e / tl.sum(e, 0), mask=mask)
