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


# A dtype constexpr with a dtype default: its stored signature and its key must serve a process
# without Python, in either spelling.
@triton.jit
def scaled_add_dtype(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, X_dtype: tl.constexpr = tl.float16):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if X_dtype == tl.float16:
        y = y * 2
    tl.store(out_ptr + offsets, x + scale(y), mask=mask)
