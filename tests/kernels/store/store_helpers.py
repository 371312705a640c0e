"""A helper module: editing it must invalidate kernels of scaled_add.py that call it."""
import triton
import triton.language as tl

SCALE = tl.constexpr(2)


@triton.jit
def scale(x):
    return x * SCALE
