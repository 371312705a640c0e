"""A kernel module inside a package: imported on its own, `from . import` fails."""
import triton
import triton.language as tl

from . import DEFAULT_BLOCK


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr = DEFAULT_BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
