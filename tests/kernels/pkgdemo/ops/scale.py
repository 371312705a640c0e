"""A kernel module inside a package: relative imports, and values the package's __init__ sets.
Imported as a file on its own, the relative imports fail."""
import triton
import triton.language as tl

from .. import DEFAULT_BLOCK, SCALE
from ._helpers import scaled


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr = DEFAULT_BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, scaled(tl.load(x_ptr + offs, mask=mask), SCALE), mask=mask)
