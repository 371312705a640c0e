"""out = x + scale(y), where scale lives in another file (store_helpers.py)."""
import triton
import triton.language as tl

from store_helpers import scale


@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + scale(y), mask=mask)
