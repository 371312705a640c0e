"""Kernels for tests/python/test_empty_like_gpu.py: a tiled 2-D kernel under @triton.autotune that
writes two outputs (the sum and the difference of its inputs), for launches whose outputs are
triton_jit.empty_like placeholders; and the same under @triton_jit.jit as a decorator."""
import triton
import triton.language as tl

import triton_jit

_CONFIGS = [triton.Config({"BLOCK_M": 16, "BLOCK_N": 32}, num_warps=2),
            triton.Config({"BLOCK_M": 32, "BLOCK_N": 64}, num_warps=4)]


@triton.autotune(configs=_CONFIGS, key=["M", "N"])
@triton.jit
def sum_and_difference_kernel(x_ptr, y_ptr, sum_ptr, difference_ptr, M, N, stride_m,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) & (cols < N)
    offs = rows * stride_m + cols
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(sum_ptr + offs, x + y, mask=mask)
    tl.store(difference_ptr + offs, x - y, mask=mask)


@triton_jit.jit
@triton.autotune(configs=_CONFIGS, key=["M", "N"])
@triton.jit
def decorated_sum_and_difference_kernel(x_ptr, y_ptr, sum_ptr, difference_ptr, M, N, stride_m,
                                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) & (cols < N)
    offs = rows * stride_m + cols
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(sum_ptr + offs, x + y, mask=mask)
    tl.store(difference_ptr + offs, x - y, mask=mask)
