"""Defaults: constexpr ints, strings, None, floats and bools, then trailing runtime defaults."""
import triton
import triton.language as tl


@triton.jit
def defaults_kernel(x_ptr, n, BLOCK: tl.constexpr = 128, MODE: tl.constexpr = "fast", EXTRA: tl.constexpr = None,
                    ALPHA: tl.constexpr = 1.5, FLAG: tl.constexpr = True, scale=2, one=1):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if MODE == "fast":
        x = x * scale
    if EXTRA is not None:
        x = x + EXTRA
    if FLAG:
        x = x * ALPHA
    tl.store(x_ptr + offs, x + one, mask=mask)
